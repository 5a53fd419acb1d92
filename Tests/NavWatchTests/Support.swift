import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
import WebKitThread

/// Records every delegate call as one readable line, numbering navigations
/// in the order they start (#1, #2, ...), and lets a test wait for a line.
@WebKitActor
final class Recorder: NavigationDelegate {
    private(set) var lines: [String] = []
    private var numbers: [UInt64: Int] = [:]
    private var waiters: [(id: Int, predicate: ([String]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextWaiter = 0
    var actionPolicy: NavigationActionPolicy = .allow
    /// `webView.title` as each `didFinish` arrived.
    private(set) var titlesAtFinish: [String?] = []
    let base: String

    init(base: URL? = nil) {
        self.base = base?.absoluteString ?? "\u{0}"
    }

    /// A new view that reports to this recorder (which the caller keeps alive).
    func makeView(_ configuration: WebViewConfiguration = WebViewConfiguration()) throws -> WebView {
        let view = try WebView(configuration: configuration)
        view.navigationDelegate = self
        return view
    }

    private func number(_ navigation: Navigation) -> String {
        if numbers[navigation.id] == nil { numbers[navigation.id] = numbers.count + 1 }
        return "#\(numbers[navigation.id]!)"
    }

    private func short(_ url: URL?) -> String {
        (url?.absoluteString ?? "-").replacingOccurrences(of: base, with: "")
    }

    private func record(_ line: String) {
        lines.append(line)
        let ready = waiters.filter { $0.predicate(lines) }
        waiters.removeAll { $0.predicate(lines) }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Waits until `predicate` holds for the lines, or `seconds` pass.
    func wait(seconds: Double = 20, until predicate: @escaping ([String]) -> Bool) async {
        if predicate(lines) { return }
        await withCheckedContinuation { continuation in
            nextWaiter += 1
            let id = nextWaiter
            waiters.append((id, predicate, continuation))
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                if let index = self.waiters.firstIndex(where: { $0.id == id }) {
                    self.waiters.remove(at: index).continuation.resume()
                }
            }
        }
    }

    /// Waits for the terminal line of navigation `number` (1-based).
    func waitForEnd(of number: Int, seconds: Double = 20) async {
        await wait(seconds: seconds) { lines in
            lines.contains { $0.hasPrefix("#\(number) finish") || $0.hasPrefix("#\(number) fail") }
        }
    }

    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation) {
        record("\(number(navigation)) start \(short(navigation.url))")
    }
    func webView(_ webView: WebView, didReceiveServerRedirectFor navigation: Navigation, to url: URL) {
        record("\(number(navigation)) redirect \(short(url))")
    }
    func webView(_ webView: WebView, didCommit navigation: Navigation, response: NavigationResponse) {
        record("\(number(navigation)) commit \(response.statusCode) \(response.mimeType ?? "-")")
    }
    func webView(_ webView: WebView, didFinish navigation: Navigation) {
        titlesAtFinish.append(webView.title)
        record("\(number(navigation)) finish")
    }
    func webView(_ webView: WebView, didFailProvisionalNavigation navigation: Navigation, withError error: NavigationError) {
        record("\(number(navigation)) fail-provisional \(error.kind.rawValue)")
        if ProcessInfo.processInfo.environment["NAVWATCH_TEST_TRACE"] != nil { print("TRACE", error) }
    }
    func webView(_ webView: WebView, didFail navigation: Navigation, withError error: NavigationError) {
        record("\(number(navigation)) fail \(error.kind.rawValue)")
    }
    func webViewWebContentProcessDidTerminate(_ webView: WebView, reason: WebProcessTerminationReason) {
        record("terminated \(reason)")
    }
    func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        actionPolicy
    }
    func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation) {
        record("same-document \(navigation.kind) \(short(navigation.url))")
    }
    func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest) {
        record("new-window \(short(request.url))")
    }
    func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse {
        record("dialog \(dialog.kind) \(dialog.message)")
        return .accept
    }
    func webView(_ webView: WebView, didBecomeDownload download: Download) {
        record("download \(short(download.url))")
    }
}

/// Runs `body` with a view whose first navigation, to `/hang`, has started
/// and will never get an answer. The server is the test's own: a request
/// that never gets an answer holds one of the network process's six
/// connections to its host, which would stall other tests.
@WebKitActor
func withHangingLoad(_ body: @WebKitActor (LoopbackServer, Recorder, WebView) async throws -> Void) async throws {
    let server = try await LoopbackServer.start(route: FixtureSite.route)
    let recorder = Recorder(base: server.baseURL)
    let view = try recorder.makeView()
    try view.load(server.url("/hang"))
    await recorder.wait { $0.contains("#1 start /hang") }
    do {
        try await body(server, recorder, view)
    } catch {
        view.close()
        await server.shutdown()
        throw error
    }
    view.close()
    await server.shutdown()
}

/// The loopback servers every bridge test uses.
enum TestSite {
    static let routes = FixtureSite.route
    static let http = Task { try await LoopbackServer.start(route: routes) }
    static let https = Task { try await LoopbackServer.start(tls: .loopbackTest, route: routes) }
}
