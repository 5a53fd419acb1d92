import Foundation
import LoopbackServer
@testable import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// The shared cases: pages without scripts, crawled rendered (`RenderMode.always`)
/// and read from their HTML (`.never`), give the same reports (outcome,
/// status, title, redirects, final URL, link count) and the same link graph
/// (every link's target, href, fragment, text, rel and element; every
/// anchor fragments point at).
@Suite("Pages without scripts: the same reports and links rendered and read from HTML")
struct StaticParityTests {
    /// Every case page is linked from `/`; their links lead to pages that are 404s (`/missing` links on).
    static func route(_ request: LoopbackRequest, base: String) -> LoopbackResponse {
        func page(_ body: String, title: String? = "Case") -> LoopbackResponse {
            .html("<!doctype html>" + (title.map { "<title>\($0)</title>" } ?? "") + body)
        }
        switch request.path {
        case "/":
            return page(["relative", "text", "anchors", "base", "frames", "frameset", "area", "untitled", "tagsoup",
                         "entities", "resources"].map { "<a href=\"/cases/\($0)\">\($0)</a>" }.joined()
                        + "<a href=\"/moved\">moved</a><a href=\"/missing\">missing</a>", title: "Cases")
        case "/cases/relative":
            let hrefs = ["a.html", "../up.html", "./b/c.html?x=1&y=2", "?q=1", "#frag", "", "/abs",
                         base.replacingOccurrences(of: "http:", with: "") + "/proto-relative",
                         "  spaced.html\n", "tab\tbed.html", "with space.html", "caf\u{E9}.html", "back\\slash.html",
                         "http:scheme-relative.html", "mailto:x@example.org", "javascript:void(0)", "ftp://127.0.0.1/f",
                         base.uppercased() + "/Upper", "#", "a.html#x%20y", "a.html#caf%C3%A9", "/abs#anchors-1"]
            return page(hrefs.enumerated().map { "<a href=\"\($1)\">link \($0)</a>" }.joined(separator: "\n"))
        case "/cases/text":
            return page("""
                <a href="/t1">  two\u{A0}\n words <b>bold</b> <script type="application/json">{"a": 1}</script></a>
                <a href="/t2"><img alt=""><img src="/nothing.gif" alt="second"></a>
                <a href="/t3"><img src="/nothing.gif" alt="Logo"></a>
                <a href="/t4" aria-label="Label" title="Title"> </a>
                <a href="/t5" aria-label="" title="Title"></a>
                <a href="/t6"></a>
                <a href="/t7">\(String(repeating: "a", count: 199))\u{1F600}tail</a>
                <a href="/t8" rel="next nofollow">rel</a>
                """)
        case "/cases/anchors":
            return page("""
                <h1 id="anchors-1">x</h1><a name="old">o</a><a name="anchors-1"></a><svg id="drawing"></svg>
                <template id="tpl"><p id="in-template"></p><a href="/in-template">t</a></template>
                <noscript><p id="in-noscript"></p><a href="/in-noscript">n</a></noscript>
                <a href="/cases/anchors#old">old</a><a href="/cases/anchors#drawing">drawing</a>
                <a href="/cases/anchors#in-template">in template</a><a href="/cases/anchors#in-noscript">in noscript</a>
                <a href="/cases/anchors#nowhere">nowhere</a>
                """, title: "\n  Anchors   and\tids  ")
        case "/cases/resources":
            return page("""
                <noscript><img src="/in-head-noscript.png"><a href="/in-head-noscript">n</a></noscript>
                <link rel="STYLESHEET" href="s.css"><link rel="icon shortcut" href="/i.ico"><link rel="next" href="/n">
                <script type="module" src="m.js"></script><script type="text/plain" src="/not-run.js"></script>
                <img src=" spaced.png\n" alt=" Two\n words "><img src="caf\u{E9}.png"><img src="">
                <picture><source srcset="w.webp 800w, n,arrow.webp 400w"><img srcset="a.png, b.png 2x" src="a.png"></picture>
                <video src="v.webm"><source src="/v.mp4"></video><audio src="../a.mp3"></audio>
                <template><img src="/in-template.png"></template><noscript><img src="/in-noscript.png"></noscript>
                <svg><link rel="stylesheet" href="/svg.css"/><video src="/svg.webm"/></svg>
                """)
        case "/cases/base":
            return page("<a href=\"early.html\">early</a><base href=\"/based/\"><a href=\"late.html\">late</a>")
        case "/cases/frames":
            return page("<iframe src=\"/framed\">fallback <b>text</b></iframe><iframe src=\"\"></iframe>")
        case "/cases/frameset":
            return .html("<!doctype html><title>Frames</title><frameset><frame src=\"/frame-a\"><frame src=\"frame-b\"></frameset>")
        case "/cases/area":
            return page("<map name=\"m\"><area href=\"/area-1\" alt=\"One\"><area alt=\"no href\"></map><img usemap=\"#m\">")
        case "/cases/untitled":
            return .html("<!doctype html><p><a href=\"/u\">u</a>")
        case "/cases/tagsoup":
            return page("""
                <a href="/s1"><p>para</a> after<table><a href="/fostered">fostered</a><tr><td><a href="/cell">cell</a>
                </table><b><i>mis</b>nested</i><a href="/s2">unclosed<a href="/s3">next</a><ul><li>one<li><a href="/s4">two</a></ul>
                """)
        case "/cases/entities":
            return page("<a href=\"/e?x=1&amp;y=2&copy\">&copy; &amp; &lt;tag&gt;</a>")
        case "/moved":
            return .redirect(to: "/cases/relative", status: 301)
        case "/missing":
            return .html("<!doctype html><title>Not here</title><a href=\"/from-404\">back</a>", status: 404)
        default:
            // No links: a page found at two depths would be reported at whichever one came first.
            return .html("<!doctype html><title>Not found</title><p>nothing</p>", status: 404)
        }
    }

    /// The fields both paths must agree on, one line per report, sorted. A
    /// parent is named by where it led: `/moved` and `/cases/relative` are
    /// one page, and which of the two links a target first depends on which
    /// worker finished first.
    static func fields(_ reports: [PageLoadReport]) -> [String] {
        let shownAt = Dictionary(reports.map { ($0.url, $0.finalURL ?? $0.url) }, uniquingKeysWith: { first, _ in first })
        return reports.map { report in
            [report.url, report.outcome.rawValue, report.skipReason?.rawValue ?? "-", report.status.map(String.init) ?? "-",
             report.mime ?? "-", report.title.map { "\"\($0)\"" } ?? "-", report.finalURL ?? "-",
             report.redirects.map { "\($0.status) \($0.url)" }.joined(separator: ","), "links \(report.links)",
             "depth \(report.depth)", report.parent.map { shownAt[$0] ?? $0 } ?? "-"].joined(separator: " | ")
        }.sorted()
    }

    static func links(_ graph: LinkGraph) -> [String] {
        graph.links.map { link in
            [link.source, link.target, link.href, link.fragment ?? "-", link.text, link.rel ?? "-", link.element, link.resource ?? "-"]
                .joined(separator: " | ")
        }.sorted()
    }

    @Test("every report field both paths have, and the whole link graph")
    func parity() async throws {
        let base = Mutex<String>("")
        let server = try await LoopbackServer.start { request in Self.route(request, base: base.withLock { $0 }) }
        defer { Task { await server.shutdown() } }
        base.withLock { $0 = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }

        var crawls: [RenderMode: ([PageLoadReport], LinkGraph)] = [:]
        for mode in [RenderMode.always, .never] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("parity-\(UUID().uuidString).db").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let store = try SQLiteCrawlStore(path: path)
            var configuration = CrawlConfiguration(seeds: [server.url("/")])
            (configuration.maxDepth, configuration.retries, configuration.obeyRobots) = (2, 0, false)
            configuration.allowPrivateAddresses = true
            configuration.render = mode
            let crawler = try Crawler(configuration: configuration, store: store)
            _ = try await withDeadline("the \(mode) crawl", within: .seconds(120)) { try await crawler.run { _ in } }
            crawls[mode] = (try await store.allReports(), try await store.linkGraph())
            await store.close()
        }
        let (rendered, renderedGraph) = try #require(crawls[.always])
        let (read, readGraph) = try #require(crawls[.never])
        #expect(rendered.count > 40)
        let readFields = Self.fields(read), renderedFields = Self.fields(rendered)
        #expect(readFields.count == renderedFields.count)
        for (readReport, renderedReport) in zip(readFields, renderedFields) where readReport != renderedReport {
            Issue.record("read \(readReport)\nrendered \(renderedReport)")
        }
        let readLinks = Self.links(readGraph), renderedLinks = Self.links(renderedGraph)
        #expect(readLinks.count == renderedLinks.count)
        for (readLink, renderedLink) in zip(readLinks, renderedLinks) where readLink != renderedLink {
            Issue.record("read \(readLink)\nrendered \(renderedLink)")
        }
        #expect(readGraph.aliases == renderedGraph.aliases)
        #expect(readGraph.anchors == renderedGraph.anchors)
        #expect(rendered.allSatisfy { $0.rendered == nil }
                && read.filter { $0.wasLoaded && $0.checkedWith == nil }.allSatisfy { $0.rendered == false })
        // The resources case: each of its resources once, by the same rule on both paths.
        let resources = readLinks.filter { $0.contains("/cases/resources |") && !$0.hasSuffix("| -") }
        #expect(resources.count == 13, "\(resources)")
        // Nothing written in a `<noscript>` of the head (text where scripts run), no SVG element of an HTML name.
        #expect(!(readLinks + renderedLinks).contains { $0.contains("in-head-noscript") || $0.contains("/svg.") })
    }
}
