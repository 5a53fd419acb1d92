import Foundation
import LoopbackServer
import NavWatchCrawler
import NavWatchTestSupport
import Testing

/// Crawls `seeds` into a fresh database and returns the reports, sorted by
/// URL, as `url outcome[/skip reason]` with `base` cut off.
private func crawlRows(_ seeds: [URL], base: String, configure: (inout CrawlConfiguration) -> Void = { _ in })
    async throws -> [String] {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString).db").path
    defer { removeSQLiteDatabase(atPath: path) }
    var configuration = CrawlConfiguration(seeds: seeds)
    configuration.backoff = .milliseconds(50)
    configure(&configuration)
    let store = try SQLiteCrawlStore(path: path)
    let crawler = try Crawler(configuration: configuration, store: store)
    _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
    let reports = try await store.allReports()
    await store.close()
    return reports.map { report in
        "\(report.url.replacingOccurrences(of: base, with: "")) \(report.outcome.rawValue)"
            + (report.skipReason.map { "/\($0.rawValue)" } ?? "")
    }.sorted()
}

/// A small site: `/` links to `/a` and `/private/secret`; robots.txt
/// disallows `/private` and names `sitemaps` (paths or URLs); `/pages.xml`
/// lists `/` and `/orphan`; `/index.xml` is a sitemap index of `children`.
private func site(host: String = "127.0.0.1", sitemaps: [String], children: [String] = []) async throws -> LoopbackServer {
    try await LoopbackServer.start(host: host) { request in
        func page(_ title: String, _ links: [String]) -> LoopbackResponse {
            .html("<!doctype html><title>\(title)</title>" + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined())
        }
        switch request.path {
        case "/": return page("Home", ["/a", "/private/secret"])
        case "/a", "/orphan", "/private/secret": return page(request.path, [])
        case "/robots.txt":
            return .text("User-agent: *\nDisallow: /private\n" + sitemaps.map { "Sitemap: \($0)\n" }.joined())
        case "/pages.xml":
            return .text(#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/</loc></url>"#
                         + "<url><loc>/orphan</loc></url></urlset>", contentType: "application/xml")
        case "/index.xml":
            return .text(#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#
                         + children.map { "<sitemap><loc>\($0)</loc></sitemap>" }.joined() + "</sitemapindex>",
                         contentType: "application/xml")
        default: return .html("<title>Not found</title>", status: 404)
        }
    }
}

@Suite("Seeds in any form, and nothing but http and https")
struct SeedAndSchemeTests {
    static let expected = ["/ ok", "/a ok", "/orphan ok", "/private/secret skipped/robots"]

    @Test("sitemaps on Unix sockets, named by robots.txt or a sitemap index, are never asked, guard on or off",
          arguments: [false, true])
    func unixSocketSitemaps(allowPrivateAddresses: Bool) async throws {
        let socket = try UnixSocketListener()
        defer { socket.shutdown() }
        let onSocket = ["http+unix://\(socket.encodedPath)/anything", "unix://\(socket.path)",
                        "https+unix://\(socket.encodedPath)/x"]
        let server = try await site(sitemaps: onSocket + ["/index.xml"],
                                    children: ["http+unix://\(socket.encodedPath)/child.xml", "/pages.xml"])
        defer { Task { await server.shutdown() } }
        let rows = try await crawlRows([server.url("/")], base: server.baseURL.absoluteString) {
            $0.sitemap = .auto
            $0.allowPrivateAddresses = allowPrivateAddresses
        }
        #expect(rows == Self.expected)
        #expect(socket.connections == 0)
        #expect(server.receivedRequests.filter { $0.hasSuffix(".xml") } == ["/index.xml", "/pages.xml"])
    }

    @Test("a seed written as one decimal number is the dotted address WebKit loads: allowed by its guard, robots obeyed")
    func decimalIPv4Seed() async throws {
        let server = try await site(sitemaps: ["/pages.xml"])
        defer { Task { await server.shutdown() } }
        let seed = try #require(URL(string: "http://2130706433:\(server.port)/"))
        let rows = try await crawlRows([seed], base: server.baseURL.absoluteString) { $0.sitemap = .auto }
        #expect(rows == Self.expected)
        #expect(server.receivedRequests.filter { $0 == "/private/secret" } == [])
    }

    @Test("an IPv6 seed fetches its robots.txt and sitemaps: a disallowed page is not loaded")
    func ipv6Seed() async throws {
        let server = try await site(host: "::1", sitemaps: ["/pages.xml"])
        defer { Task { await server.shutdown() } }
        let rows = try await crawlRows([server.url("/")], base: server.baseURL.absoluteString) { $0.sitemap = .auto }
        #expect(rows == Self.expected)
        // Once for its Sitemap: lines, once for its rules.
        #expect(server.receivedRequests.filter { $0 == "/robots.txt" }.count == 2)
        #expect(server.receivedRequests.filter { $0 == "/private/secret" } == [])
    }
}

@Suite("Pages that navigate by themselves")
struct SelfNavigatingPageTests {
    /// `/` links to ten pages that navigate away by themselves once loaded
    /// (five by script, five by a 0-second meta refresh), each to a service
    /// on 127.0.0.2 that the guard refuses, and to ten plain pages.
    static func site(service: LoopbackServer) async throws -> LoopbackServer {
        let away = service.url("/away").absoluteString
        return try await LoopbackServer.start { request in
            let path = request.path
            switch path {
            case "/":
                let links = (1...10).flatMap { ["/script-\($0)", "/meta-\($0)", "/plain-\($0)"] }
                return .html("<title>Home</title>" + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined())
            case let script where script.hasPrefix("/script-"):
                return .html("<title>Script</title><script>addEventListener('load', () => { location.href = '\(away)' })</script>")
            case let meta where meta.hasPrefix("/meta-"):
                return .html("<meta http-equiv=\"refresh\" content=\"0; url=\(away)\"><title>Meta</title>")
            case let plain where plain.hasPrefix("/plain-"):
                return .html("<title>Plain</title>")
            default:
                return .html("<title>Not found</title>", status: 404)
            }
        }
    }

    @Test("the page after one that navigates away is loaded, never cancelled by the previous page's navigation")
    func nextPageIsNotCancelled() async throws {
        let service = try await LoopbackServer.start(host: "127.0.0.2") { _ in .html("<title>Internal</title>") }
        let server = try await Self.site(service: service)
        defer { Task { await server.shutdown(); await service.shutdown() } }
        let rows = try await crawlRows([server.url("/")], base: server.baseURL.absoluteString) {
            $0.concurrency = 1
            $0.retries = 0
        }
        let expected = ["/ ok"] + (1...10).flatMap { ["/meta-\($0) ok", "/plain-\($0) ok", "/script-\($0) ok"] }
        #expect(rows == expected.sorted())
        #expect(service.receivedRequests == [])
    }
}
