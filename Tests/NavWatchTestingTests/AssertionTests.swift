import Foundation
import NavWatchTesting
import Testing

/// Each web-first assertion passes once the page changes 300 ms after the
/// test asks it to, and fails with Playwright's Expected / Received / Call log.
@Suite("Web-first assertions retry until they hold")
@WebKitActor
struct AssertionTests {
    @Test("every assertion holds after the change 300 ms later")
    func passAfterChange() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        let start = ContinuousClock.now
        _ = try await view.evaluateJavaScript("setTimeout(change, 300)")
        try await expect(view.locator("#status")).toHaveText("Ready: 3 items")
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        try await expect(view.locator("#status")).toHaveText(/\d items/)
        try await expect(view.locator("#status")).toContainText("3 items")
        try await expect(view.locator("#status")).toHaveClass("ready done")
        try await expect(view.locator("#status")).toHaveClass(/ready/)
        try await expect(view.locator("#items li")).toHaveText(["One", "Two", "Three"])
        try await expect(view.locator("#items li")).toContainText(["One", "Three"])
        try await expect(view.locator("#items li")).toHaveCount(3)
        try await expect(view.locator("#field")).toHaveValue("new")
        try await expect(view.locator("#box")).toBeChecked()
        try await expect(view.locator("#button")).toBeEnabled()
        try await expect(view.locator("#shown")).toBeVisible()
        try await expect(view.locator("#gone")).toBeHidden()
        try await expect(view.locator("#empty")).toBeEmpty()
        try await expect(view.locator("#field")).toBeFocused()
        try await expect(view.locator("#link")).toHaveAttribute("href", "/next")
        try await expect(view.locator("#link")).toHaveAttribute("href")
        try await expect(view).toHaveTitle("After")
        try await expect(view).toHaveURL(/#after$/)
        try await expect(view.locator("#status")).not.toHaveClass("pending")
        try await expect(view.locator("#button")).not.toBeDisabled()
    }

    @Test("before the change: the opposite assertions hold, and negated ones")
    func before() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        try await expect(view.locator("#status")).toHaveText("Loading")
        try await expect(view.locator("#button")).toBeDisabled()
        try await expect(view.locator("#shown")).toBeHidden()
        try await expect(view.locator("#shown")).not.toBeVisible()
        try await expect(view.locator("#items li")).toHaveCount(1)
        try await expect(view).toHaveTitle("Before")
        try await expect(view.locator("#status")).not.toHaveText("Ready: 3 items")
    }

    @Test("a failure says what was expected, what was received last and what was waited for")
    func failure() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        _ = try await view.evaluateJavaScript("change()")
        var failure: AssertionFailure?
        await withKnownIssue {
            do {
                try await expect(view.locator("#status"), timeout: .milliseconds(600)).toHaveText("Ready: 4 items")
            } catch let error as AssertionFailure {
                failure = error
                throw error
            }
        }
        let lines = failure?.description.split(separator: "\n").map(String.init) ?? []
        #expect(Array(lines.prefix(6)) == [
            #"expect(locator('#status')).toHaveText("Ready: 4 items") failed"#,
            #"Expected: "Ready: 4 items""#,
            #"Received: "Ready: 3 items""#,
            "Call log:",
            #"  - toHaveText("Ready: 4 items") with timeout 600 ms"#,
            "  - waiting for locator('#status')",
        ])
        #expect(lines.last?.firstMatch(of: /^  - checked \d+ times$/) != nil, "\(lines)")

        await withKnownIssue {
            try await expect(view.locator("#items li"), timeout: .milliseconds(300)).not.toHaveCount(3)
        }
        await withKnownIssue {
            try await expect(view, timeout: .milliseconds(300)).toHaveTitle("Elsewhere")
        }
    }

    @Test("each assertion, failing: its exact Expected and Received")
    func everyFailure() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        _ = try await view.evaluateJavaScript("change()")
        let short = Duration.milliseconds(200)
        let status = expect(view.locator("#status"), timeout: short), items = expect(view.locator("#items li"), timeout: short)
        let cases: [(String, () async throws -> Void)] = [
            (#"toHaveText("Ready") | "Ready" | "Ready: 3 items""#, { try await status.toHaveText("Ready") }),
            (#"toHaveText(/…/) | a match of the Regex | "Ready: 3 items""#, { try await status.toHaveText(/^\d/) }),
            (#"toHaveText(["One", "Two"]) | ["One", "Two"] | ["One", "Two", "Three"]"#, { try await items.toHaveText(["One", "Two"]) }),
            (#"toContainText("4 items") | text containing "4 items" | "Ready: 3 items""#, { try await status.toContainText("4 items") }),
            (#"toContainText(["Four"]) | ["Four"] | ["One", "Two", "Three"]"#, { try await items.toContainText(["Four"]) }),
            (#"toHaveClass("ready") | "ready" | "ready done""#, { try await status.toHaveClass("ready") }),
            (#"toHaveClass(["a", "b", "c"]) | ["a", "b", "c"] | ["", "", ""]"#, { try await items.toHaveClass(["a", "b", "c"]) }),
            (#"toHaveValue("old") | "old" | "new""#, { try await expect(view.locator("#field"), timeout: short).toHaveValue("old") }),
            (#"toHaveAttribute("href", "/") | href="/" | "/next""#,
             { try await expect(view.locator("#link"), timeout: short).toHaveAttribute("href", "/") }),
            (#"toHaveAttribute("title") | attribute title | null"#,
             { try await expect(view.locator("#link"), timeout: short).toHaveAttribute("title") }),
            ("toHaveCount(2) | 2 | 3", { try await items.toHaveCount(2) }),
            ("toBeVisible() | visible | <element(s) not found>", { try await expect(view.locator("#gone"), timeout: short).toBeVisible() }),
            ("toBeHidden() | hidden | visible", { try await status.toBeHidden() }),
            ("toBeChecked() | not checked | checked", { try await expect(view.locator("#box"), timeout: short).not.toBeChecked() }),
            ("toBeEnabled() | not enabled | enabled", { try await expect(view.locator("#button"), timeout: short).not.toBeEnabled() }),
            ("toBeDisabled() | disabled | enabled", { try await expect(view.locator("#button"), timeout: short).toBeDisabled() }),
            ("toBeEditable() | not editable | editable", { try await expect(view.locator("#field"), timeout: short).not.toBeEditable() }),
            ("toBeEmpty() | empty | not empty", { try await status.toBeEmpty() }),
            ("toBeFocused() | focused | not focused", { try await expect(view.locator("#link"), timeout: short).toBeFocused() }),
            (#"toHaveTitle("Before") | "Before" | "After""#, { try await expect(view, timeout: short).toHaveTitle("Before") }),
            ("toHaveURL(/…/) | a URL matching the Regex | ", { try await expect(view, timeout: short).toHaveURL(/#before$/) }),
        ]
        for (wanted, assertion) in cases {
            var failure: AssertionFailure?
            await withKnownIssue {
                do { try await assertion() } catch let error as AssertionFailure { failure = error; throw error }
            }
            let lines = failure?.description.split(separator: "\n").map(String.init) ?? []
            let name = lines.first.flatMap { $0.firstMatch(of: /^expect\(.*?\)(?:\.not)?\.(.*) failed$/).map { String($0.1) } } ?? "-"
            let expected = lines.count > 1 ? String(lines[1].dropFirst("Expected: ".count)) : "-"
            let received = lines.count > 2 ? String(lines[2].dropFirst("Received: ".count)) : "-"
            let got = "\(name) | \(expected) | \(received)"
            if wanted.hasSuffix("| ") {
                #expect(got.hasPrefix(wanted), "\(got)")
            } else {
                #expect(got == wanted, "\(got)")
            }
        }
    }

    @Test("an assertion about one element that matches several fails at once: strict mode")
    func strict() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        _ = try await view.evaluateJavaScript("change()")
        try await expect(view.locator("#items li")).toHaveCount(3)
        // Not retried: a minute's timeout, and it is over long before.
        let start = ContinuousClock.now
        await #expect(throws: InteractionError.strictModeViolation(locator: "locator('#items li')", count: 3)) {
            try await expect(view.locator("#items li"), timeout: .seconds(60)).toHaveText("One")
        }
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test("a suite's expectTimeout applies when a call gives none", .expectTimeout(.milliseconds(200)))
    func suiteTimeout() async throws {
        #expect(ExpectTimeout.current == .milliseconds(200))
        let view = try await open("/changes")
        defer { view.close() }
        var failure: AssertionFailure?
        await withKnownIssue {
            do {
                try await expect(view.locator("#status")).toHaveText("never")
            } catch let error as AssertionFailure {
                failure = error
                throw error
            }
        }
        // The suite's 200 ms, not the standard 5 s: as the failure's call log
        // says, which a busy machine does not change as it does the wall time.
        #expect(failure?.callLog.first == "toHaveText(\"never\") with timeout 200 ms",
                "\(failure.map(String.init(describing:)) ?? "no failure")")
    }
}
