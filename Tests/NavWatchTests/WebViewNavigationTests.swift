import CNavShim
import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
import Testing
import WebKitThread

/// Loads `path` in a new view and returns the delegate's lines once the
/// navigation has ended (plus `settle` seconds for late events).
@WebKitActor
private func lines(loading path: String, on server: LoopbackServer, configuration: WebViewConfiguration = .init(),
                   until extra: (([String]) -> Bool)? = nil) async throws -> [String] {
    let recorder = Recorder(base: server.baseURL)
    let view = try recorder.makeView(configuration)
    defer { view.close() }
    try view.load(server.url(path))
    await recorder.waitForEnd(of: 1)
    if let extra { await recorder.wait(until: extra) }
    return recorder.lines
}

@Suite("WebView navigations against a loopback server")
struct WebViewNavigationTests {
    @Test("a plain page starts, commits and finishes")
    func plainPage() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/page", on: server)
        #expect(result == ["#1 start /page", "#1 commit 200 text/html", "#1 finish"])
    }

    @Test("a chain of three redirects reports each hop, then commits the target")
    func redirectChain() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/redirect/3", on: server)
        #expect(result == ["#1 start /redirect/3", "#1 redirect /redirect/2", "#1 redirect /redirect/1",
                           "#1 redirect /page", "#1 commit 200 text/html", "#1 finish"])
    }

    @Test("404 and 500 finish with their status on the response", arguments: [404, 500])
    func httpErrorsFinish(status: Int) async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/status/\(status)", on: server)
        #expect(result == ["#1 start /status/\(status)", "#1 commit \(status) text/html", "#1 finish"])
    }

    @Test("a redirect loop fails with too-many-redirects")
    func redirectLoop() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/loop", on: server)
        #expect(result.first == "#1 start /loop")
        #expect(result.last == "#1 fail-provisional too-many-redirects")
        #expect(result.filter { $0.contains("finish") }.isEmpty)
    }

    @Test("an unresolvable host fails provisionally with kind dns")
    @WebKitActor func unresolvableHost() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.load(URL(string: "http://no-such-host.invalid/")!)
        await recorder.waitForEnd(of: 1)
        #expect(recorder.lines == ["#1 start http://no-such-host.invalid/", "#1 fail-provisional dns"])
    }

    @Test("a refused connection fails provisionally with kind connection-refused")
    func refusedConnection() async throws {
        let refusing = try RefusingPort()
        let url = URL(string: refusing.url)!
        let result = try await Self.load(url)
        #expect(result == ["#1 start \(url.absoluteString)", "#1 fail-provisional connection-refused"])
        withExtendedLifetime(refusing) {}  // the port stays taken until here
    }

    @Test("a restricted port fails provisionally with kind blocked-port, never a finish")
    func restrictedPort() async throws {
        let result = try await Self.load(URL(string: "http://127.0.0.1:1/")!)
        #expect(result == ["#1 start http://127.0.0.1:1/", "#1 fail-provisional blocked-port"])
    }

    @Test("a self-signed certificate fails with kind tls")
    func selfSignedFails() async throws {
        let server = try await TestSite.https.value
        let result = try await lines(loading: "/page", on: server)
        #expect(result == ["#1 start /page", "#1 fail-provisional tls"])
    }

    @Test("a self-signed certificate loads when TLS errors are ignored")
    func selfSignedIgnored() async throws {
        let server = try await TestSite.https.value
        let result = try await lines(loading: "/page", on: server, configuration: .init(tlsErrors: .ignore))
        #expect(result == ["#1 start /page", "#1 commit 200 text/html", "#1 finish"])
    }

    @Test("a second load cancels the first, which ends exactly once as cancelled")
    @WebKitActor func secondLoadCancelsFirst() async throws {
        try await withHangingLoad { server, recorder, view in
            try view.load(server.url("/page"))
            await recorder.waitForEnd(of: 2)
            await recorder.wait(seconds: 0.5) { _ in false }  // late events of the first cycle must not appear
            #expect(recorder.lines == ["#1 start /hang", "#1 fail-provisional cancelled",
                                       "#2 start /page", "#2 commit 200 text/html", "#2 finish"])
        }
    }

    @Test("a server that never answers times out within the timeout plus one second")
    @WebKitActor func timeout() async throws {
        // Requests that never get an answer hold one of the network process's
        // connections to their host: such tests get a server of their own.
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        let recorder = Recorder(base: server.baseURL)
        let view = try recorder.makeView()
        defer { view.close() }
        // A first load starts the web process, so the timed load measures the server alone.
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 1)
        let clock = ContinuousClock()
        let started = clock.now
        try view.load(server.url("/hang"), timeout: .seconds(2))
        await recorder.waitForEnd(of: 2, seconds: 10)
        let elapsed = clock.now - started
        #expect(recorder.lines.suffix(2) == ["#2 start /hang", "#2 fail-provisional timeout"])
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(3))
        // The view stays usable.
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 3)
        #expect(recorder.lines.suffix(3) == ["#3 start /page", "#3 commit 200 text/html", "#3 finish"])
    }

    @Test("a connection reset after the headers is a committed failure")
    @WebKitActor func resetAfterHeaders() async throws {
        // WebKit misses a reset on a connection made before the request: one
        // left open by an earlier load (so: a server of its own), or opened
        // ahead while the web process launches (so: a view already running).
        // See shared/webkitgtk-facts.md.
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        let recorder = Recorder(base: server.baseURL)
        let view = try recorder.makeView()
        defer { view.close() }
        try view.load(URL(string: "about:blank")!)
        await recorder.waitForEnd(of: 1)
        try view.load(server.url("/reset"))
        await recorder.waitForEnd(of: 2)
        #expect(recorder.lines.filter { $0.hasPrefix("#2") } == ["#2 start /reset", "#2 commit 200 text/html", "#2 fail connection-reset"])
    }

    @Test("a web process terminated mid-load fails the navigation; the view stays usable")
    @WebKitActor func terminatedMidLoad() async throws {
        try await withHangingLoad { server, recorder, view in
            view.terminateWebProcess()
            await recorder.waitForEnd(of: 1)
            try view.load(server.url("/page"))
            await recorder.waitForEnd(of: 2)
            #expect(recorder.lines == ["#1 start /hang", "terminated terminatedByAPI", "#1 fail-provisional web-process-crashed",
                                       "#2 start /page", "#2 commit 200 text/html", "#2 finish"])
        }
    }

    @Test("a script that never returns times out; the hung web process is replaced and the next load finishes")
    @WebKitActor func hungWebProcess() async throws {
        let server = try await TestSite.http.value
        let recorder = Recorder(base: server.baseURL)
        let view = try recorder.makeView()
        defer { view.close() }
        // A first load starts the web process, so the timed load measures the script alone.
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 1)
        // Long enough for the commit to arrive before the timeout on a busy machine.
        try view.load(server.url("/spin"), timeout: .seconds(5))
        await recorder.waitForEnd(of: 2)
        // Asked for while the old process does not answer: issued again in the new one.
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 3)
        #expect(recorder.lines == ["#1 start /page", "#1 commit 200 text/html", "#1 finish",
                                   "#2 start /spin", "#2 commit 200 text/html", "#2 fail timeout",
                                   "terminated terminatedByAPI", "#3 start /page", "#3 commit 200 text/html", "#3 finish"])
    }

    @Test("alert() and confirm() during load are answered and reported; the load finishes")
    func alertDuringLoad() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/alert", on: server)
        #expect(result == ["#1 start /alert", "#1 commit 200 text/html", "dialog alert hello", "dialog confirm sure?",
                           "#1 finish"])
    }

    @Test("a download response is reported and never shown")
    func download() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/download", on: server)
        #expect(result == ["#1 start /download", "download /download", "#1 fail-provisional policy"])
    }

    @Test("a delegate that cancels the action stops the load before any request")
    @WebKitActor func policyCancel() async throws {
        let server = try await LoopbackServer.start(route: TestSite.routes)
        defer { Task { await server.shutdown() } }
        let recorder = Recorder(base: server.baseURL)
        recorder.actionPolicy = .cancel
        let view = try recorder.makeView()
        defer { view.close() }
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 1)
        #expect(recorder.lines == ["#1 fail-provisional policy"])
        #expect(server.receivedRequests.isEmpty)
    }

    @Test("pushState and a fragment change are same-document navigations")
    func sameDocument() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/push", on: server) { $0.count >= 5 }
        #expect(result == ["#1 start /push", "#1 commit 200 text/html", "#1 finish",
                           "same-document push /pushed", "same-document fragment /pushed#frag"])
    }

    @Test("each same-document navigation is reported once, in order, with its kind: push, replace, pop, fragment")
    func sameDocumentKinds() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/history", on: server) { $0.count >= 11 }
        #expect(result == ["#1 start /history", "#1 commit 200 text/html", "#1 finish",
                           "same-document replace /h/start", "same-document push /h/one",
                           "same-document replace /h/two", "same-document fragment /h/two#frag",
                           "same-document pop /h/two", "same-document pop /h/start", "same-document pop /h/two",
                           "same-document fragment /h/two#r"])
    }

    @Test("window.open is reported as a new-window request and opens nothing")
    func newWindow() async throws {
        let server = try await TestSite.http.value
        let result = try await lines(loading: "/window", on: server) { $0.count >= 4 }
        #expect(result == ["#1 start /window", "#1 commit 200 text/html", "new-window /page", "#1 finish"])
    }

    @WebKitActor
    private static func load(_ url: URL) async throws -> [String] {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.load(url)
        await recorder.waitForEnd(of: 1)
        return recorder.lines
    }
}
