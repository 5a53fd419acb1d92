import Foundation
import LoopbackServer
import Synchronization

/// A loopback site in two versions, for comparing crawls: the tests crawl
/// version 1, switch to version 2 (same address) and crawl again.
///
///     /           → /a /b /c /redirect /slow /pic, and "Another page": /removed (1) or /new (2)
///     /a          → /fixed, /always-missing (404 in both)
///     /b          → in 2, a script throws "Error: boom"
///     /c          → title "C" (1), "C, renamed" (2); → /will-break
///     /fixed      → 404 (1), 200 (2);  /will-break → 200 (1), 404 (2): the same HTML
///     /redirect   → 302 to /b (1), to /c (2)
///     /slow       → at once (1), after 1.5 s (2)
///     /pic        → a blue box (1), a red box (2)
final class ChangingSite: Sendable {
    let server: LoopbackServer
    private let version: Version

    private final class Version: Sendable {
        let number = Mutex(1)
    }

    static func start() async throws -> ChangingSite {
        let version = Version()
        let server = try await LoopbackServer.start(route: { request in
            Self.route(request, version: version.number.withLock { $0 })
        })
        return ChangingSite(server: server, version: version)
    }

    private init(server: LoopbackServer, version: Version) {
        self.server = server
        self.version = version
    }

    func switchToVersion2() { version.number.withLock { $0 = 2 } }

    func shutdown() async { await server.shutdown() }

    /// The base URL, without a trailing slash.
    var base: String { server.baseURL.absoluteString.trimmingCharacters(in: ["/"]) }

    /// `text` with the base replaced by `A`.
    func relative(_ text: String) -> String { text.replacingOccurrences(of: base, with: "A") }

    private static func route(_ request: LoopbackRequest, version: Int) -> LoopbackResponse {
        func page(_ title: String, _ body: String, status: Int = 200) -> LoopbackResponse {
            .html("<!doctype html><title>\(title)</title><body>\(body)</body>", status: status)
        }
        switch request.path {
        case "/":
            return page("Home", """
                <a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a> <a href="/redirect">Redirect</a>
                <a href="/slow">Slow</a> <a href="/pic">Picture</a> <a href="\(version == 1 ? "/removed" : "/new")">Another page</a>
                """)
        case "/a": return page("A", #"<a href="/fixed">Fixed</a> <a href="/always-missing">Always missing</a>"#)
        case "/b": return page("B", version == 1 ? "B" : #"B<script>throw new Error("boom")</script>"#)
        case "/c": return page(version == 1 ? "C" : "C, renamed", #"<a href="/will-break">Will break</a>"#)
        case "/fixed": return page("Fixed", "Fixed", status: version == 1 ? 404 : 200)
        case "/will-break": return page("Will break", "Will break", status: version == 1 ? 200 : 404)
        case "/redirect": return .redirect(to: version == 1 ? "/b" : "/c")
        case "/slow": return version == 1 ? page("Slow", "Slow") : .delayed(.milliseconds(1500), page("Slow", "Slow"))
        case "/pic":
            let color = version == 1 ? "#2050c0" : "#c02020"
            return page("Picture", #"<div style="width:400px;height:300px;background:\#(color)"></div>"#)
        case "/removed" where version == 1, "/new" where version == 2:
            return page("Another", "Another")
        case "/robots.txt":
            return .text("", status: 404)
        default:
            return page("Not found", "Not found", status: 404)
        }
    }
}
