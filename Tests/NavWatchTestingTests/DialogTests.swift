import Foundation
import NavWatchTesting
import Testing

/// Dialogs reach `onDialog`'s handler, as Playwright's `page.on('dialog')`;
/// what it leaves unanswered gets the delegate's answer, by default the
/// configuration's (`.testing` dismisses, the default accepts), and every
/// dialog is reported with its answer.
@Suite("Dialogs: a handler answers them, the rest get the configuration's answer")
@WebKitActor
struct DialogTests {
    /// Records every dialog the view reports, with its answer.
    private final class Reported: NavigationDelegate {
        var dialogs: [String] = []
        func webView(_ webView: WebView, didAnswerScriptDialog dialog: ScriptDialog) {
            dialogs.append("\(dialog.kind) \(dialog.message) \(dialog.answer.map { "\($0)" } ?? "unanswered")")
        }
    }

    private func press(_ id: String, on view: WebView) async throws -> String {
        try await view.locator("#\(id)").click()
        return try await view.evaluateJavaScript("out.textContent", as: String.self)
    }

    @Test("the handler sees each dialog's type, message and default value; its answer reaches the page and is reported")
    func handlerAnswers() async throws {
        let view = try await open("/dialogs")
        defer { view.close() }
        let reported = Reported()
        view.navigationDelegate = reported
        var seen: [String] = []
        view.onDialog { dialog in
            seen.append("\(dialog.type) \(dialog.message) [\(dialog.defaultValue)]")
            switch dialog.type {
            case .confirm: dialog.accept()
            case .prompt: dialog.accept("Grace")
            default: dialog.dismiss()
            }
            dialog.dismiss()  // the first answer counts
        }
        #expect(try await press("alert", on: view) == "alerted")
        #expect(try await press("confirm", on: view) == "confirm:true")
        #expect(try await press("prompt", on: view) == "prompt:Grace")
        #expect(seen == ["alert Hi []", "confirm Delete? []", "prompt Name? [Ada]"])
        #expect(reported.dialogs == ["alert Hi dismissed", "confirm Delete? accepted", #"prompt Name? accepted "Grace""#])
    }

    @Test("unanswered: a .testing view dismisses, a default view accepts; a handler that answers nothing, or none, falls through")
    func unanswered() async throws {
        let testing = try await open("/dialogs")
        defer { testing.close() }
        #expect(try await press("confirm", on: testing) == "confirm:false")
        #expect(try await press("prompt", on: testing) == "prompt:null")
        var asked = 0
        testing.onDialog { _ in asked += 1 }
        #expect(try await press("confirm", on: testing) == "confirm:false")
        #expect(asked == 1)
        testing.onDialog { $0.accept() }
        #expect(try await press("confirm", on: testing) == "confirm:true")
        testing.onDialog(nil)
        #expect(try await press("confirm", on: testing) == "confirm:false")

        let watching = try await open("/dialogs", configuration: WebViewConfiguration())
        defer { watching.close() }
        #expect(try await press("confirm", on: watching) == "confirm:true")
        #expect(try await press("prompt", on: watching) == "prompt:Ada")
    }

    @Test("a page that asks 1,200 times in a loop: each dialog is dismissed in turn and the test goes on; the page's report keeps the first 1,000")
    func thousandDialogs() async throws {
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        let reported = Reported()
        view.navigationDelegate = reported
        let fold = try view.loadFolding(try await LocatorPages.server.value.url("/dialogs"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished)
        try await view.locator("#thousand").click(timeout: .seconds(30))
        try await expect(view.locator("#out")).toHaveText("1200 dismissed", timeout: .seconds(30))
        #expect(reported.dialogs.count == 1200)
        #expect(reported.dialogs.first == "confirm #0 dismissed" && reported.dialogs.last == "confirm #1199 dismissed")
        #expect(WebView.retainedConsoleEntries == 1000)
        #expect(fold.state.dialogs.map(\.message) == (0..<1000).map { "#\($0)" })
        #expect(try await view.evaluateJavaScript("document.title", as: String.self) == "Dialogs")
    }

    @Test("a beforeunload prompt reaches the handler when the page is left; accepted, the page goes")
    func beforeUnload() async throws {
        let view = try await open("/dialogs")
        defer { view.close() }
        let reported = Reported()
        view.navigationDelegate = reported
        var seen: [ScriptDialog.Kind] = []
        view.onDialog { dialog in
            seen.append(dialog.type)
            dialog.accept()
        }
        try await view.locator("#leave").click()  // the page has been interacted with: it may ask
        let server = try await LocatorPages.server.value
        guard case .finished = try await view.goto(server.url("/form"), timeout: .seconds(10)) else {
            Issue.record("the page was not left")
            return
        }
        #expect(seen == [.beforeUnload])
        #expect(reported.dialogs.count == 1 && reported.dialogs.first?.hasPrefix("beforeunload ") == true
                && reported.dialogs.first?.hasSuffix(" accepted") == true, "\(reported.dialogs)")
    }
}
