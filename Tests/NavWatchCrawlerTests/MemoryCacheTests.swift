import Foundation
import LoopbackServer
import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// The pages one web process loads share WebKit's memory cache; the reports
/// still list every resource each page used, say which came from the cache,
/// and count only the bytes that crossed the network.
/// How many times each path was asked for.
private final class Hits: Sendable {
    let counts = Mutex<[String: Int]>([:])
}

@Suite("Reports with the memory cache on")
struct MemoryCacheTests {
    /// `/`, `/a` and `/b` each use the same style sheet and script (fresh for
    /// an hour), a script that is not there (404), an image on a port that
    /// refuses connections, and one on 127.0.0.2 (which the guard refuses).
    private static func site(refusing: RefusingPort, hits: Hits) async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            hits.counts.withLock { $0[request.path, default: 0] += 1 }
            let fresh = [("Cache-Control", "max-age=3600")]
            switch request.path {
            case "/", "/a", "/b":
                let links = request.path == "/" ? #"<a href="/a">a</a><a href="/b">b</a>"# : ""
                return .html("""
                    <!doctype html><title>\(request.path)</title><link rel="stylesheet" href="/s.css">
                    <script src="/s.js"></script><script src="/missing.js"></script>
                    <img src="http://127.0.0.1:\(refusing.port)/refused.png"><img src="http://127.0.0.2:8080/blocked.png">\(links)
                    """)
            case "/s.css": return .text("body { margin: 0 }", contentType: "text/css", headers: fresh)
            case "/s.js": return .text("var shared = 1;", contentType: "text/javascript", headers: fresh)
            case "/missing.js": return .text("// no such script", status: 404, contentType: "text/javascript")
            default: return .html("<title>Not found</title>", status: 404)
            }
        }
    }

    @Test("the second and third pages take the shared files from the cache, and report every failure again")
    func sharedFiles() async throws {
        let refusing = try RefusingPort()
        let hits = Hits()
        let server = try await Self.site(refusing: refusing, hits: hits)
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        configuration.concurrency = 1  // one view, one web process: one memory cache
        configuration.obeyRobots = false
        let store = try SQLiteCrawlStore(path: path)
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let reports = try await store.allReports().sorted { $0.url < $1.url }
        await store.close()

        let base = server.baseURL.absoluteString
        // The pages, and the resources they embed: those the first page's own requests answered, the missing
        // script (which WebKit cancels) checked with HTTP, those of other hosts outside the scope.
        #expect(reports.map { $0.url.replacingOccurrences(of: base, with: "") + " " + $0.outcome.rawValue + " " + ($0.checkedWith?.rawValue ?? "-") }.sorted()
                == ["/ ok -", "/a ok -", "/b ok -", "/missing.js http-error HEAD", "/s.css ok page", "/s.js ok page",
                    "http://127.0.0.1:\(refusing.port)/refused.png skipped -", "http://127.0.0.2:8080/blocked.png skipped -"])
        // Each shared file crossed the network once, for the first page.
        #expect(hits.counts.withLock { [$0["/s.css"], $0["/s.js"]] } == [1, 1])
        for report in reports where ["/", "/a", "/b"].contains(report.url.replacingOccurrences(of: base, with: "")) {
            let first = report.url == base + "/"
            let rows = report.requests.map { request in
                "\(request.url.replacingOccurrences(of: base, with: "")) \(request.status.map(String.init) ?? request.error?.rawValue ?? "-")"
                    + " cache=\(request.fromCache.map(String.init) ?? "?")"
            }
            // WebKit may ask for a file that failed twice (its preload scanner, then the parser): each time is listed.
            #expect(Set(rows) == [
                report.url.replacingOccurrences(of: base, with: "") + " 200 cache=false",
                // WebKit ends a script that answers 404 by cancelling it.
                "/missing.js cancelled cache=?",
                "/s.css 200 cache=\(!first)", "/s.js 200 cache=\(!first)",
                "http://127.0.0.1:\(refusing.port)/refused.png 502 cache=?",
                "http://127.0.0.2:8080/blocked.png 403 cache=?",
            ], "\(report.url)")
            #expect(report.requests.filter { $0.fromCache == true }.allSatisfy { $0.transferBytes == 0 })
            #expect(report.resources.fromCache == (first ? 0 : 2))
            #expect(report.resources.failed == 1)
            #expect(report.resources.blocked == report.requests.count { $0.url.hasSuffix("/blocked.png") })
            // Only what crossed the network: the document and, the first time, the shared files.
            let fetched = report.requests.compactMap(\.transferBytes).reduce(0, +)
            #expect(report.resources.transferBytes == fetched && fetched > 0)
        }
    }
}
