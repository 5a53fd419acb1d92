import Foundation
import LoopbackServer
import Synchronization
@testable import NavWatchHTTP

/// The loopback site the HTTP tests ask: one route per case, absolute URLs
/// built from the request's `Host`.
enum TestSite {
    /// Every request the site received, as `METHOD /path user-agent`.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    static let userAgent = "navwatch-http-tests/1.0"

    static func route(log: Log) -> LoopbackServer.Route {
        { request in
            let userAgent = request.headers.first { $0.0.lowercased() == "user-agent" }?.1 ?? "-"
            log.append("\(request.method) \(request.uri) \(userAgent)")
            let host = request.headers.first { $0.0.lowercased() == "host" }?.1 ?? "127.0.0.1"
            let origin = "http://\(host)"
            switch request.path {
            case "/ok":
                return .html("<title>OK</title>")
            case "/head-refused":
                return request.method == "HEAD"
                    ? .text("no HEAD here", status: 405, headers: [("Allow", "GET")])
                    : .text("GET works", contentType: "text/plain; charset=UTF-8")
            case "/missing":
                return .html("<title>Missing</title>", status: 404)
            case "/chain/1": return .redirect(to: "/chain/2", status: 301)       // absolute path
            case "/chain/2": return .redirect(to: "3", status: 302)              // relative path
            case "/chain/3": return .redirect(to: "\(origin)/missing", status: 307)  // absolute URL
            case "/loop": return .redirect(to: "/loop")
            case "/busy":
                return .text("slow down", status: 429, headers: [("Retry-After", "1")])
            case "/hang":
                return .hang
            case "/reset":
                return .resetAfterHeaders
            case "/gzip":
                return .respond(status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                                body: Array(try! Gzip.compress(Array(gzipText.utf8))))
            case "/big":
                return .text(String(repeating: "0123456789", count: 10_000))
            // Sitemaps: an index of two readable children, a missing one and itself.
            case "/sitemap_index.xml":
                return .text("""
                    <?xml version="1.0" encoding="UTF-8"?>
                    <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                      <sitemap><loc>\(origin)/sitemap-a.xml</loc></sitemap>
                      <sitemap><loc>\(origin)/sitemap-missing.xml</loc></sitemap>
                      <sitemap><loc>\(origin)/sitemap-b.xml.gz</loc></sitemap>
                      <sitemap><loc>\(origin)/sitemap_index.xml</loc></sitemap>
                    </sitemapindex>
                    """, contentType: "application/xml")
            case "/sitemap-a.xml":
                return .text(urlset(["\(origin)/a", "\(origin)/b", "\(origin)/shared"]), contentType: "application/xml")
            case "/sitemap-b.xml.gz":
                return .respond(status: 200, headers: [("Content-Type", "application/x-gzip")],
                                body: Array(try! Gzip.compress(Array(urlset(["\(origin)/shared", "\(origin)/c"]).utf8))))
            // Indexes nested four deep: /nest/3's pages are read, /nest/b4's (depth 4) are not.
            case "/nest/0.xml": return .text(sitemapIndex(["\(origin)/nest/1.xml"]), contentType: "application/xml")
            case "/nest/1.xml": return .text(sitemapIndex(["\(origin)/nest/2.xml"]), contentType: "application/xml")
            case "/nest/2.xml":
                return .text(sitemapIndex(["\(origin)/nest/3.xml", "\(origin)/nest/b3.xml"]), contentType: "application/xml")
            case "/nest/3.xml": return .text(urlset(["\(origin)/p3"]), contentType: "application/xml")
            case "/nest/b3.xml": return .text(sitemapIndex(["\(origin)/nest/b4.xml"]), contentType: "application/xml")
            case "/nest/b4.xml": return .text(urlset(["\(origin)/p4"]), contentType: "application/xml")
            case "/not-a-sitemap.xml":
                return .html("<html><body>hello</body></html>")
            default:
                return .html("<title>Not found</title>", status: 404)
            }
        }
    }

    static let gzipText = String(repeating: "navwatch fetches gzip bodies. ", count: 200)

    static func sitemapIndex(_ sitemaps: [String]) -> String {
        """
        <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        \(sitemaps.map { "  <sitemap><loc>\($0)</loc></sitemap>" }.joined(separator: "\n"))
        </sitemapindex>
        """
    }

    static func urlset(_ pages: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        \(pages.map { "  <url><loc>\($0)</loc></url>" }.joined(separator: "\n"))
        </urlset>
        """
    }
}

/// Runs `body` with a fresh loopback site and checker, and shuts both down
/// whatever happens (AsyncHTTPClient traps on a client never shut down).
func withSite<T: Sendable>(timeout: Duration = .seconds(5),
                           _ body: (LoopbackServer, HTTPChecker, TestSite.Log) async throws -> T) async throws -> T {
    let log = TestSite.Log()
    let server = try await LoopbackServer.start(route: TestSite.route(log: log))
    let checker = HTTPChecker(userAgent: TestSite.userAgent, timeout: timeout)
    do {
        let result = try await body(server, checker, log)
        await checker.shutdown()
        await server.shutdown()
        return result
    } catch {
        await checker.shutdown()
        await server.shutdown()
        throw error
    }
}
