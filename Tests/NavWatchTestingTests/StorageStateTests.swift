import Foundation
import LoopbackServer
import NavWatchTesting
import Synchronization
import Testing

/// A small app with a log-in: `/login` sets an HttpOnly session cookie and
/// the page writes `localStorage`; `/account` knows the session (from the
/// Cookie header) and shows the stored theme in its title.
private enum App {
    static let cookieHeaders = Mutex<[String: [String]]>([:])

    static let server = Task {
        try await LoopbackServer.start { request in
            let cookie = request.headers.first { $0.0.lowercased() == "cookie" }?.1 ?? ""
            cookieHeaders.withLock { $0[request.uri, default: []].append(cookie) }
            switch request.path {
            case "/login":
                return .html("<!doctype html><title>Logged in</title><script>localStorage.setItem('theme', 'dark')</script>",
                             headers: [("Set-Cookie", "session=abc123; Path=/; HttpOnly")])
            case "/account":
                guard cookie.split(separator: ";").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "session=abc123" }) else {
                    return .html("<!doctype html><title>Log in</title>")
                }
                return .html("<!doctype html><title>Account</title><script>document.title += ' ' + localStorage.getItem('theme')</script>")
            case "/light":
                return .html("<!doctype html><title>Light</title><script>localStorage.setItem('theme', 'light')</script>")
            default:
                return .html("<!doctype html><title>Other</title>")
            }
        }
    }

    /// The Cookie headers `uri` (a path and query) was requested with, in order.
    static func cookies(sentTo uri: String) -> [String] { cookieHeaders.withLock { $0[uri] ?? [] } }
}

@Suite("Storage: each test view starts empty; cookies read, added and cleared; a saved state starts a view logged in")
@WebKitActor
struct StorageStateTests {
    private func goto(_ view: WebView, _ path: String) async throws {
        let server = try await App.server.value
        guard case .finished = try await view.goto(server.url(path)) else {
            throw InteractionError.noMatch(selector: "the page \(path) did not load")
        }
    }

    @Test("two test views: the cookie and localStorage one gets are not the other's")
    func isolated() async throws {
        let first = try WebView(configuration: .testing)
        defer { first.close() }
        let second = try WebView(configuration: .testing)
        defer { second.close() }
        try await goto(first, "/login")
        try await goto(second, "/account")
        try await expect(second).toHaveTitle("Log in")
        #expect(try await second.cookies() == [])
        #expect(try await second.evaluateJavaScript("String(localStorage.getItem('theme'))", as: String.self) == "null")
        try await goto(first, "/account")
        try await expect(first).toHaveTitle("Account dark")
    }

    @Test("cookies(), cookies(for:), addCookies and clearCookies, HttpOnly included, as the server sees them")
    func cookies() async throws {
        let server = try await App.server.value
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        try await goto(view, "/login")
        let session = Cookie(name: "session", value: "abc123", domain: "127.0.0.1", path: "/", expires: -1,
                             httpOnly: true, secure: false, sameSite: .none)
        #expect(try await view.cookies() == [session])
        #expect(try await view.cookies(for: [server.url("/account")]) == [session])
        #expect(try await view.cookies(for: [URL(string: "http://127.0.0.2:\(server.port)/")!]) == [])

        let flag = try Cookie(name: "flag", value: "on", url: server.url("/"), path: "/flagged", expires: 4_102_444_800)
        try await view.addCookies([flag])
        #expect(Set(try await view.cookies()) == [session, flag])
        #expect(try await view.cookies(for: [server.url("/account")]) == [session])
        try await goto(view, "/flagged/page")
        // The cookie of the longer path first (RFC 6265, 5.4).
        #expect(App.cookies(sentTo: "/flagged/page").last == "flag=on; session=abc123")

        try await view.clearCookies()
        #expect(try await view.cookies() == [])
        try await goto(view, "/account")
        try await expect(view).toHaveTitle("Log in")
    }

    @Test("a state saved after logging in starts a second view logged in; the page's own changes then stand")
    func savedState() async throws {
        let server = try await App.server.value
        let origin = "http://127.0.0.1:\(server.port)"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }

        let first = try WebView(configuration: .testing)
        defer { first.close() }
        try await goto(first, "/login")
        let state = try await first.storageState()
        let session = Cookie(name: "session", value: "abc123", domain: "127.0.0.1", httpOnly: true, sameSite: .none)
        #expect(state == StorageState(cookies: [session],
                                      origins: [.init(origin: origin, localStorage: [.init(name: "theme", value: "dark")])]))
        try state.write(to: file)
        // Playwright's storageState file, key for key.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(Set(json.keys) == ["cookies", "origins"])
        let cookie = try #require((json["cookies"] as? [[String: Any]])?.first)
        #expect(Set(cookie.keys) == ["name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"])
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)

        var configuration = WebViewConfiguration.testing
        configuration.storageState = try StorageState(contentsOf: file)
        #expect(configuration.storageState == state)
        let second = try WebView(configuration: configuration)
        defer { second.close() }
        // Its first request already carries the session (a query of this test's own).
        try await goto(second, "/account?saved-state")
        try await expect(second).toHaveTitle("Account dark")
        #expect(App.cookies(sentTo: "/account?saved-state") == ["session=abc123"])
        // Set once, before the origin's first document: not again over the page's change.
        try await goto(second, "/light")
        try await goto(second, "/account")
        try await expect(second).toHaveTitle("Account light")
        #expect(try await second.storageState().origins == [.init(origin: origin, localStorage: [.init(name: "theme", value: "light")])])
    }

    @Test("an origin of the starting state no document has shown yet is kept in the view's state")
    func unvisitedOrigin() async throws {
        let other = StorageState.Origin(origin: "http://127.0.0.3:9", localStorage: [.init(name: "k", value: "v")])
        var configuration = WebViewConfiguration.testing
        configuration.storageState = StorageState(origins: [other])
        let view = try WebView(configuration: configuration)
        defer { view.close() }
        try await goto(view, "/other")
        #expect(try await view.storageState() == StorageState(origins: [other]))
    }

    @Test("bad input: a cookie without a name or with a relative path, a file that is not a state: one line naming it")
    func badInput() async throws {
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        await #expect(throws: WebViewError.invalidConfiguration(#"a cookie has no name (its value is "x")"#)) {
            try await view.addCookies([Cookie(name: "", value: "x", domain: "127.0.0.1")])
        }
        await #expect(throws: WebViewError.invalidConfiguration(#"the cookie "a" has the path "p", which does not start with /"#)) {
            try await view.addCookies([Cookie(name: "a", value: "x", domain: "127.0.0.1", path: "p")])
        }
        #expect(throws: WebViewError.invalidConfiguration(#"the cookie "a" is for file:///tmp/x, which has no host"#)) {
            _ = try Cookie(name: "a", value: "x", url: URL(fileURLWithPath: "/tmp/x"))
        }
        let nowhere = URL(fileURLWithPath: "/nonexistent/dir/state.json")
        do {
            try StorageState().write(to: nowhere)
            Issue.record("a state was written into a directory that does not exist")
        } catch {
            #expect(error.description.hasPrefix("cannot write the storage state /nonexistent/dir/state.json: cannot create /nonexistent/dir/.state.json."))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-state-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"cookies": 3}"#.utf8).write(to: file)
        do {
            _ = try StorageState(contentsOf: file)
            Issue.record("a file that is not a state was read")
        } catch {
            #expect(error.description == "the storage state \(file.path) is not a storage state's JSON: at .cookies, Expected to decode Array<Any> but found number instead.")
        }
    }
}
