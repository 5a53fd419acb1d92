import Foundation
import NavWatchTesting
import Testing

/// Actions wait for what Playwright calls actionability, and say what they
/// waited for when it never came.
@Suite("Actions wait until the element can take them")
@WebKitActor
struct ActionabilityTests {
    private func log(_ view: WebView) async throws -> [String] {
        try await view.evaluateJavaScript("window.log", as: [String].self)
    }

    @Test("an element added after 300 ms is clicked once it is there")
    func late() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        try await view.locator("#late").click()
        let seen = try await log(view)
        #expect(seen.filter { $0.hasPrefix("late") } == ["late"], "\(seen)")
    }

    @Test("a disabled button enabled after 300 ms is clicked once it is enabled")
    func laterEnabled() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        try await view.getByRole("button", name: "Later enabled").click()
        #expect(try await log(view).filter { $0.hasPrefix("disabled") } == ["disabled"])
    }

    @Test("an element moving in a CSS transition is clicked once it has stopped, where it stopped")
    func moving() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        try await view.locator("#moving").click()
        let moving = try await log(view).filter { $0.hasPrefix("moving") }
        #expect(moving == ["moving at 300px"])
    }

    @Test("an element detached and added again is clicked in its new form")
    func detached() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        _ = try await view.callAsyncJavaScript("await new Promise(done => setTimeout(done, 120));")
        try await view.locator("#flaky").click()
        #expect(try await view.locator("#flaky").textContent() == "Flaky again")
        #expect(try await log(view).filter { $0.hasPrefix("flaky") } == ["flaky"])
    }

    @Test("a button the page replaces on mousedown, as frameworks re-render: pressed once, never again")
    func replacedOnPress() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        try await view.locator("#rerender").click()
        let seen = try await log(view)
        #expect(seen.filter { $0.hasPrefix("mousedown") } == ["mousedown rerender"], "\(seen)")
    }

    @Test("a covered element: the click times out naming the element on top, and nothing is clicked")
    func covered() async throws {
        let view = try await open("/actionability")
        defer { view.close() }
        await #expect(throws: InteractionError.timedOut(
            waitingFor: #"locator('#under') to be visible, enabled, stable, receiving pointer events (<div id="overlay"> intercepts pointer events)"#,
            after: .milliseconds(500))) {
            try await view.locator("#under").click(timeout: .milliseconds(500))
        }
        #expect(try await log(view).filter { $0.hasPrefix("under") || $0.hasPrefix("overlay") } == [])
    }

    @Test("nth past the end: count 0, and an action times out naming the locator")
    func pastTheEnd() async throws {
        let view = try await open("/locators")
        defer { view.close() }
        #expect(try await view.getByTestId("item").nth(3).count() == 0)
        await #expect(throws: InteractionError.timedOut(
            waitingFor: "getByTestId('item').nth(3) to be visible, enabled, stable, receiving pointer events (no element matches)",
            after: .milliseconds(300))) {
            try await view.getByTestId("item").nth(3).click(timeout: .milliseconds(300))
        }
    }

    @Test("double click, check, uncheck, fill, press with modifiers, select, files, dispatchEvent, hover, focus")
    func actions() async throws {
        let view = try await open("/form")
        defer { view.close() }
        try await view.locator("#target").dblclick()
        try await view.locator("#target").click()
        try await view.getByLabel("Subscribe").check()
        try await view.getByLabel("Subscribe").check()
        #expect(try await view.getByLabel("Subscribe").isChecked())
        try await view.getByLabel("Subscribe").uncheck()
        #expect(try await !view.getByLabel("Subscribe").isChecked())
        try await view.getByPlaceholder("Your name").fill("Ada Lovelace")
        try await view.getByPlaceholder("Your name").press("Control+A")
        try await view.getByPlaceholder("Your name").press("Backspace")
        #expect(try await view.getByPlaceholder("Your name").inputValue() == "")
        try await view.getByPlaceholder("Your name").press("Shift+KeyB")
        let typed = try await view.getByPlaceholder("Your name").inputValue()
        #expect(typed == "B")
        #expect(try await view.getByRole("combobox").selectOption("Green") == ["g"])
        try await view.locator("#file").setInputFiles([.init(name: "notes.txt", mimeType: "text/plain", contents: Data("hello".utf8))])
        try await view.locator("#target").dispatchEvent("blur")
        try await view.locator("#target").hover()
        try await view.locator("#target").focus()
        let seen = try await view.evaluateJavaScript("window.log", as: [String].self)
        // Real input: the pointer passes over the button first, a click moves the focus.
        #expect(seen == [
            "mouseover target", "focus target", "click 1 target", "click 2 target", "dblclick target", "click 1 target",
            "blur target", "change subscribe true", "change subscribe false", "focus name",
            "keydown Control ctrl", "keydown a ctrl", "keydown Backspace", "keydown Shift", "keydown B shift",
            "change colour g", "change file notes.txt text/plain 5",
            "blur target (untrusted)", "mouseover target", "focus target",
        ])
        await #expect(throws: InteractionError.notInteractable(selector: "locator('#target')", reason: "it is not a checkbox or radio button")) {
            try await view.locator("#target").check()
        }
    }
}
