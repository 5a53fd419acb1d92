import Foundation
import LoopbackServer
import NavWatchTestSupport
import Synchronization

/// A loopback site of known shape for crawl tests:
///
///     /            → /p1 /p2 /p3 /r1, a duplicate of /p1 spelled differently, #top,
///                    mailto:, javascript:, an off-site link, /private/secret (robots), ftp://
///     /pN          → /pN-1 /pN-2 / #frag           (N = 1...3)
///     /pN-M        → /                             (leaves)
///     /r1          → 302 to /p1
///     /robots.txt  → Disallow: /private
///     /flaky       → 500 twice, then a page;  /busy → 429 with Retry-After: 1 once, then a page
///     /stall       → commits and never finishes; /hang never answers
///     /slow-first  → a page, after 1 s the first time (linked from nowhere)
///     /noisy       → logs a warning and an error, fails an image, throws six errors (linked from nowhere)
final class CrawlSite: Sendable {
    let server: LoopbackServer
    private let hits = Mutex<[String: Int]>([:])

    static func start() async throws -> CrawlSite {
        let holder = CrawlSiteRoutes()
        let server = try await LoopbackServer.start(route: holder.route)
        let site = CrawlSite(server: server)
        holder.site.withLock { $0 = site }
        return site
    }

    /// The page at `/styled`.
    static let styled = """
        <!doctype html><html><head><title>Styled</title><link rel="stylesheet" href="/style.css">
        </head><body><a href="/p1">p1</a><img src="/pic.gif"><script src="/app.js"></script>
        <script>document.body.insertAdjacentHTML("beforeend", '<a href="/p2">p2</a>')</script></body></html>
        """

    private init(server: LoopbackServer) {
        self.server = server
    }

    var base: String { server.baseURL.absoluteString }

    func url(_ path: String) -> URL { server.url(path) }

    func shutdown() async { await server.shutdown() }

    /// How many times `path` was requested.
    func hitCount(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    fileprivate func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let path = request.path
        let count = hits.withLock { hits -> Int in hits[path, default: 0] += 1; return hits[path]! }
        func page(_ title: String, _ links: [String]) -> LoopbackResponse {
            .html("<!doctype html><title>\(title)</title>" + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined())
        }
        switch path {
        case "/":
            return page("Home", ["/p1", "/p2", "/p3", "/r1", base.uppercased() + "/p1#again",
                                 "#top", "mailto:someone@example.org", "javascript:void(0)", "http://off-site.invalid/",
                                 "/private/secret", "ftp://127.0.0.1/file"])
        case "/slow-first":  // long enough, the first time, to crash the web process meanwhile
            return count == 1 ? .delayed(.seconds(1), page("Slow", [])) : page("Slow", [])
        case "/p1", "/p2", "/p3":
            return page("Page \(path.dropFirst(2))", ["\(path)-1", "\(path)-2", "/", "#frag"])
        case let leaf where leaf.range(of: "^/p[1-3]-[12]$", options: .regularExpression) != nil:
            return page("Leaf \(leaf.dropFirst(2))", ["/"])
        case "/r1": return .redirect(to: "/p1")
        case "/private/secret": return page("Secret", [])
        case "/robots.txt": return .text("User-agent: *\nDisallow: /private\n")
        case "/flaky": return count <= 2 ? .html("<title>Oops</title>", status: 500) : page("Flaky", [])
        case "/busy":
            return count == 1 ? .text("slow down", status: 429, headers: [("Retry-After", "1")]) : page("Busy", [])
        case "/noisy":  // six uncaught errors, two console errors (one a failed image), a warning
            return .html("""
                <!doctype html><html><head><title>Noisy</title></head><body><img src="/missing.png"><script>
                console.warn("careful"); console.error("broken");
                for (let i = 1; i <= 6; i++) setTimeout(() => { throw new Error("error " + i); }, 0);
                </script></body></html>
                """)
        case "/styled":  // a link in the markup, one added by an inline script, one by a script file
            return .html(Self.styled)
        case "/style.css": return .text("body { font-family: Nowhere; }", contentType: "text/css")
        case "/app.js":
            return .text(#"addEventListener("DOMContentLoaded", () => document.body.insertAdjacentHTML("beforeend", '<a href="/p3">p3</a>'))"#,
                         contentType: "text/javascript")
        case "/pic.gif":  // one transparent pixel
            let gif = Data(base64Encoded: "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")!
            return .respond(status: 200, headers: [("Content-Type", "image/gif")], body: Array(gif))
        case "/stall": return .stallAfterHeaders
        case "/hang": return .hang
        default: return .html("<title>Not found</title>", status: 404)
        }
    }
}

/// Lets the route reach the site object created after the server.
private final class CrawlSiteRoutes: Sendable {
    let site = Mutex<CrawlSite?>(nil)
    var route: LoopbackServer.Route {
        { [self] request in site.withLock { $0 }?.respond(request) ?? .hang }
    }
}
