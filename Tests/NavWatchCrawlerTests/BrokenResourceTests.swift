import Foundation
import LoopbackServer
@testable import NavWatchCrawler
import NavWatchTestSupport
import Testing

/// Broken images, style sheets, scripts and media sources are found with
/// every page that uses them, from rendered pages and from pages read from
/// their HTML alike.
@Suite("Broken resources the pages embed", .serialized)
struct BrokenResourceTests {
    /// `/` links to `/a`, `/b` and `/c`. `/a` and `/b` use a missing style
    /// sheet, image and script, a present icon and style sheet, and a
    /// `srcset` with one missing candidate (on `/a` only); `/c` a present
    /// image and a missing video, and links to `/present.png` too. Resources
    /// inside `<template>` and `<noscript>` are no part of the page.
    static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        let shared = """
            <link rel="stylesheet" href="/missing.css"><link rel="shortcut icon" href="/favicon.ico">
            <link rel="stylesheet" href="/present.css"><link rel="next" href="/not-a-resource">
            <script src="/missing.js"></script>
            """
        switch request.path {
        case "/":
            return .html("<!doctype html><title>Home</title><a href=\"/a\">a</a><a href=\"/b\">b</a><a href=\"/c\">c</a>")
        case "/a":
            return .html("<!doctype html><title>A</title>\(shared)<img src=\"/missing.png\" alt=\" The\n logo \">"
                         + "<img srcset=\"/present.png 1x, /gone-2x.png 2x\" alt=\"\"><a href=\"/\">home</a>"
                         + "<template><img src=\"/in-template.png\"></template><noscript><img src=\"/in-noscript.png\"></noscript>")
        case "/b":
            return .html("<!doctype html><title>B</title>\(shared)<p><img alt=\"The logo\" src=\"missing.png\"></p>")
        case "/c":
            return .html("<!doctype html><title>C</title><img src=\"/present.png\"><video src=\"/clip.webm\"></video>"
                         + "<a href=\"/present.png\">the picture</a>")
        case "/favicon.ico", "/present.png":
            return .respond(status: 200, headers: [("Content-Type", "image/png")], body: Array("png".utf8))
        case "/present.css":
            return .text("body { color: black }", contentType: "text/css")
        default:
            return .html("<!doctype html><title>Not found</title>", status: 404)
        }
    }

    /// `target problem [source element attribute "text", ...]`, paths relative to the server.
    static func rows(_ targets: [CheckedTarget], _ server: LoopbackServer) -> [String] {
        let base = server.url("/").absoluteString.dropLast()
        return targets.map { target in
            let from = target.referrers.map { "\($0.source.dropFirst(base.count)) \($0.element) \($0.resource ?? "-") \"\($0.text)\"" }
            return "\(target.target.dropFirst(base.count)) \(target.problem?.rawValue ?? "-") [\(from.joined(separator: ", "))]"
        }
    }

    static func crawl(_ server: LoopbackServer, _ mode: RenderMode, checkExternal: Bool = false) async throws
        -> (LinkCheckResult, [PageLoadReport]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("resources-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        (configuration.retries, configuration.obeyRobots, configuration.allowPrivateAddresses) = (0, false, true)
        configuration.render = mode
        configuration.checkExternal = checkExternal
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the \(mode) crawl", within: .seconds(120)) { try await crawler.run { _ in } }
        let reports = try await store.allReports()
        let result = LinkCheckResult(graph: try await store.linkGraph(), reports: reports)
        await store.close()
        return (result, reports)
    }

    @Test("a missing image, style sheet, script, srcset candidate and video, with each page that uses them, rendered or read from HTML",
          arguments: [RenderMode.always, .never])
    func brokenResources(mode: RenderMode) async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let (result, reports) = try await Self.crawl(server, mode)
        #expect(Self.rows(result.brokenResources, server) == [
            "/clip.webm http-error [/c video src \"\"]",
            "/gone-2x.png http-error [/a img srcset \"\"]",
            "/missing.css http-error [/a link href \"\", /b link href \"\"]",
            "/missing.js http-error [/a script src \"\", /b script src \"\"]",
            "/missing.png http-error [/a img src \"The logo\", /b img src \"The logo\"]",
        ])
        #expect(result.brokenResources.allSatisfy { $0.detail == "404 Not Found" && !$0.isExternal })
        #expect(result.brokenInScope.isEmpty && result.brokenExternal.isEmpty)
        // The present ones are checked and fine; `/present.png`, linked and embedded, is a resource.
        let fine = result.targets.filter { $0.problem == nil && $0.isResource }
        #expect(Self.rows(fine, server) == [
            "/favicon.ico - [/a link href \"\", /b link href \"\"]",
            "/present.css - [/a link href \"\", /b link href \"\"]",
            "/present.png - [/a img srcset \"\", /c img src \"\", /c a - \"the picture\"]",
        ])
        // An image loaded as a page (when `/c`'s link to it comes first) is shown in a document WebKit makes,
        // whose `<img>` is no resource of its own.
        #expect(result.targets.allSatisfy { $0.referrers.allSatisfy { !$0.isResource || $0.source != $0.target } })
        // Each resource is asked for once, with plain HTTP, and is no page of the crawl.
        let checked = reports.filter { $0.checkedWith != nil }.map { String($0.url.dropFirst(server.url("/").absoluteString.count - 1)) }
        #expect(checked.sorted().count == Set(checked).count)
        #expect(Set(checked).isSuperset(of: ["/clip.webm", "/favicon.ico", "/gone-2x.png", "/missing.css", "/missing.js",
                                              "/missing.png", "/present.css"]))
        #expect(!result.targets.contains { $0.target.contains("in-template") || $0.target.contains("in-noscript")
                                              || $0.target.hasSuffix("/not-a-resource") })
        // They are problems of their own kind, which `--fail-on broken` fails on.
        let problems = CrawlProblems(links: result, reports: reports).found.map(\.problem)
        #expect(problems.filter { $0.kind == .brokenResource }.count == 5)
        // A rendered page also says so on its console (once per page: the message is the same).
        let others = problems.filter { $0.kind != .brokenResource }
            .map { "\($0.kind.rawValue) \($0.url.dropFirst(server.url("/").absoluteString.count - 1)) \($0.subject)" }
        let notFound = "Failed to load resource: the server responded with a status of 404 (Not Found)"
        #expect(others == (mode == .always ? ["console-error /a \(notFound)", "console-error /b \(notFound)"] : []))
    }

    @Test("resources of another site: checked as links there are, each a resource outside the scope; a 503 is a warning",
          arguments: [RenderMode.always, .never])
    func offSiteResources(mode: RenderMode) async throws {
        let other = try await LoopbackServer.start(host: "127.0.0.2") { request in
            switch request.path {
            case "/busy.css": .html("<!doctype html><title>Busy</title>", status: 503)
            case "/page": .html("<!doctype html><title>Page</title>")
            default: .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
        defer { Task { await other.shutdown() } }
        let server = try await LoopbackServer.start { request in
            .html("""
                <!doctype html><title>Home</title><link rel="stylesheet" href="\(other.url("/busy.css"))">
                <img src="\(other.url("/gone.png"))" alt="Gone"><a href="\(other.url("/page"))">elsewhere</a>
                """)
        }
        defer { Task { await server.shutdown() } }
        let (result, reports) = try await Self.crawl(server, mode, checkExternal: true)
        let elsewhere = other.url("/").absoluteString.dropLast()
        func row(_ report: PageLoadReport) -> String {
            "\(report.url.replacingOccurrences(of: elsewhere, with: "B")) \(report.status ?? 0) resource \(report.resource ?? false) "
                + "external \(report.external ?? false)"
        }
        #expect(reports.filter { $0.url != server.url("/").absoluteString }.map(row).sorted() == [
            "B/busy.css 503 resource true external true",
            "B/gone.png 404 resource true external true",
            "B/page 200 resource false external true",
        ])
        // Broken resources, outside the scope: not broken links of another site.
        #expect(result.brokenResources.map { "\($0.target.replacingOccurrences(of: elsewhere, with: "B")) \($0.isExternal)" }
                == ["B/busy.css true", "B/gone.png true"])
        #expect(result.brokenExternal.isEmpty && result.brokenInScope.isEmpty)
        // The 503 has the severity of a server error outside the scope; the 404 stays an error.
        let problems = CrawlProblems(links: result, reports: reports).found
            .filter { $0.problem.kind == .brokenResource }.map { "\($0.problem.url.hasSuffix("css")) \($0.severity)" }
        #expect(problems.sorted() == ["false error", "true warning"])
        // They are no pages of the crawl: checked, as the link to B/page is.
        let summary = CrawlSummary(reports)
        #expect((summary.loaded, summary.checked, summary.resourcesChecked, summary.resourcesFailing) == (1, 3, 2, 2))

        // Without checking outside the scope, they are skipped as resources outside it.
        let (_, unchecked) = try await Self.crawl(server, mode)
        #expect(unchecked.filter { $0.url != server.url("/").absoluteString }.map {
            "\($0.url.replacingOccurrences(of: elsewhere, with: "B")) \($0.skipReason?.rawValue ?? "-") \($0.resource ?? false) \($0.external ?? false)"
        }.sorted() == ["B/busy.css scope true true", "B/gone.png scope true true", "B/page scope false false"])
    }
}
