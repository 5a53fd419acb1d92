import Foundation
import NavWatchTesting
import Testing

/// Each web-first assertion passes once the page changes 300 ms after it
/// loads, and fails with Playwright's Expected / Received / Call log.
@Suite("Web-first assertions retry until they hold")
@WebKitActor
struct AssertionTests {
    @Test("every assertion holds after the change 300 ms later")
    func passAfterChange() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        let start = ContinuousClock.now
        try await expect(view.locator("#status")).toHaveText("Ready: 3 items")
        #expect(ContinuousClock.now - start >= .milliseconds(250))
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

    @Test("negated assertions hold at once before the change; the opposite ones hold before it too")
    func before() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        let start = ContinuousClock.now
        try await expect(view.locator("#status")).toHaveText("Loading")
        try await expect(view.locator("#button")).toBeDisabled()
        try await expect(view.locator("#shown")).toBeHidden()
        try await expect(view.locator("#shown")).not.toBeVisible()
        try await expect(view.locator("#items li")).toHaveCount(1)
        try await expect(view).toHaveTitle("Before")
        #expect(ContinuousClock.now - start < .milliseconds(250))
    }

    @Test("a failure says what was expected, what was received last and what was waited for")
    func failure() async throws {
        let view = try await open("/changes")
        defer { view.close() }
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

    @Test("an assertion about one element that matches several fails at once: strict mode")
    func strict() async throws {
        let view = try await open("/changes")
        defer { view.close() }
        try await expect(view.locator("#items li")).toHaveCount(3)
        let start = ContinuousClock.now
        await #expect(throws: InteractionError.strictModeViolation(locator: "locator('#items li')", count: 3)) {
            try await expect(view.locator("#items li")).toHaveText("One")
        }
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test("a suite's expectTimeout applies when a call gives none", .expectTimeout(.milliseconds(200)))
    func suiteTimeout() async throws {
        #expect(ExpectTimeout.current == .milliseconds(200))
        let view = try await open("/changes")
        defer { view.close() }
        let start = ContinuousClock.now
        await withKnownIssue {
            try await expect(view.locator("#status")).toHaveText("never")
        }
        #expect(ContinuousClock.now - start < .seconds(2))
    }
}
