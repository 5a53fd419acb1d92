import Foundation
import NavWatchTesting
import Testing

/// A window the page opens is a view of its own for `waitForPopup` and
/// `onPopup`, sharing the opener's process and storage.
@Suite("Popups: windows the page opens, as views of their own")
@WebKitActor
struct PopupTests {
    @Test("a target=_blank link: the popup shows the linked page, with its own locators; the opener stays")
    func blankLink() async throws {
        let view = try await open("/popups")
        defer { view.close() }
        let popup = try await view.waitForPopup { try await view.locator("#blank").click() }
        defer { popup.close() }
        try await expect(popup).toHaveTitle("Form")
        try await expect(popup.locator("#name")).toHaveAttribute("placeholder", "Your name")
        #expect(popup.url?.path == "/form")
        // What the popup's document posts (its title at load) is the popup's, not its opener's.
        #expect(view.url?.path == "/popups" && view.title == "Popups", "\(String(describing: view.url)) \(String(describing: view.title))")
        #expect(popup.title == "Form")
    }

    @Test("window.open: the popup shares the opener's storage and knows its opener; onPopup takes each window")
    func windowOpen() async throws {
        let view = try await open("/popups")
        defer { view.close() }
        var handled: [WebView] = []
        view.onPopup { handled.append($0) }
        let popup = try await view.waitForPopup { try await view.locator("#open").click() }
        defer { popup.close() }
        try await expect(popup).toHaveTitle("Dialogs")
        #expect(handled.count == 1 && handled.first === popup)
        let shared = try await popup.evaluateJavaScript("[window.opener !== null, localStorage.getItem('shared')].join(' ')",
                                                        as: String.self)
        #expect(shared == "true yes")
        // Popups of a test view answer dialogs as their opener's configuration says.
        #expect(popup.configuration.unansweredDialogs == .dismiss)
        // The popup's uncaught errors are its own, not its opener's.
        _ = try await popup.evaluateJavaScript("setTimeout(() => { throw new Error('in the popup') }, 0); 1")
        let deadline = ContinuousClock.now + .seconds(10)
        while popup.pageErrors.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(popup.pageErrors.map(\.message) == ["Error: in the popup"])
        #expect(view.pageErrors.isEmpty)
    }

    @Test("window.close() in a popup closes its view; in the test's own view it does nothing")
    func pageClosesPopup() async throws {
        let view = try await open("/popups")
        defer { view.close() }
        let popup = try await view.waitForPopup { try await view.locator("#open").click() }
        defer { popup.close() }
        try await expect(popup).toHaveTitle("Dialogs")
        _ = try await popup.evaluateJavaScript("setTimeout(() => window.close(), 0); 1")
        let deadline = ContinuousClock.now + .seconds(10)
        while !popup.isClosed && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(popup.isClosed)
        _ = try await view.evaluateJavaScript("window.close(); 1")
        try await Task.sleep(for: .milliseconds(300))
        #expect(!view.isClosed)
        try await expect(view).toHaveTitle("Popups")
    }

    @Test("no window opens within the timeout: timedOut, naming what was awaited")
    func noPopup() async throws {
        let view = try await open("/popups")
        defer { view.close() }
        await #expect(throws: InteractionError.timedOut(waitingFor: "a popup", after: .milliseconds(200))) {
            _ = try await view.waitForPopup(timeout: .milliseconds(200)) {}
        }
    }

    @Test("a handler that keeps nothing: the popup stays open, the opener's, until the opener closes; a wait then throws closed")
    func openerOwnsPopups() async throws {
        let view = try await open("/popups")
        var seen: [WebView] = []
        view.onPopup { seen.append($0) }
        try await view.locator("#many").click()
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.count < WebView.popupLimit && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.count == WebView.popupLimit)  // 1,000 asked for, the limit opened
        let popup = try #require(seen.first)
        seen = []
        try await expect(popup).toHaveTitle("Form")
        #expect(!popup.isClosed)
        view.close()
        #expect(popup.isClosed)
        await #expect(throws: WebViewError.closed) { _ = try await view.waitForPopup {} }
    }
}
