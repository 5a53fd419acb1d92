import Foundation
import NavWatch
import Testing

/// A web-first assertion that did not hold within its timeout, as
/// Playwright reports one: what was expected, what was received last, and
/// what was waited for.
///
/// Under Swift Testing the failure is also recorded as an issue at the
/// assertion's source location, with a screenshot of the page and its HTML
/// attached (`screenshot.png`, `page.html`).
public struct AssertionFailure: Error, Sendable, CustomStringConvertible {
    /// The assertion as written: `expect(getByTestId('count')).toHaveText("3 items left")`.
    public var assertion: String
    /// What the assertion expected.
    public var expected: String
    /// What the page showed at the last check.
    public var received: String
    /// What was waited for, and how often it was checked.
    public var callLog: [String]

    /// Every part, one per line: the assertion, `Expected:`, `Received:`, `Call log:`.
    public var description: String {
        ([assertion, "Expected: \(expected)", "Received: \(received)", "Call log:"] + callLog.map { "  - " + $0 })
            .joined(separator: "\n")
    }
}

/// The retry loop every assertion shares.
@WebKitActor
struct AssertionPoll {
    let view: WebView
    let subject: String
    let timeout: Duration
    let isNot: Bool

    /// Checks `probe` until it holds (or, with `isNot`, does not), waiting
    /// for the document to change between checks, until `timeout` passes.
    ///
    /// - Parameters:
    ///   - name: the matcher, with its argument: `toHaveText("3 items left")`.
    ///   - expected: what it expects, for the failure.
    ///   - probe: whether it holds now, and what was received.
    ///   - waitForChange: returns after the next change of the page, or the
    ///     interval given.
    func run(_ name: String, expected: String, sourceLocation: SourceLocation,
             probe: @WebKitActor () async throws -> (holds: Bool, received: String),
             waitForChange: @WebKitActor (Duration) async -> Void) async throws {
        do {
            // A step of the view's trace, if one is being recorded.
            try await view.traced("expect(\(subject))\(isNot ? ".not" : "").\(name)") {
                try await poll(name, expected: expected, probe: probe, waitForChange: waitForChange)
            }
        } catch let failure as AssertionFailure {
            await record(failure, sourceLocation: sourceLocation)
            throw failure
        }
    }

    private func poll(_ name: String, expected: String,
                      probe: @WebKitActor () async throws -> (holds: Bool, received: String),
                      waitForChange: @WebKitActor (Duration) async -> Void) async throws {
        let start = ContinuousClock.now
        let deadline = start + timeout
        var checks = 0
        var received = ""
        while true {
            checks += 1
            let result = try await probe()
            received = result.received
            if result.holds != isNot { return }
            let now = ContinuousClock.now
            if now >= deadline { break }
            // Playwright's intervals, but woken early by any change of the document.
            let interval: Duration = checks < 3 ? .milliseconds(100) : checks < 5 ? .milliseconds(250) : .milliseconds(500)
            await waitForChange(min(interval, deadline - now))
        }
        let assertion = "expect(\(subject))\(isNot ? ".not" : "").\(name) failed"
        let failure = AssertionFailure(
            assertion: assertion, expected: (isNot ? "not " : "") + expected, received: received,
            callLog: ["\(name) with timeout \(Self.milliseconds(timeout)) ms",
                      "waiting for \(subject)", "checked \(checks) times"])
        throw failure
    }

    /// Records `failure` as an issue of the running test, if any, with the
    /// page's picture and HTML, and the view's trace so far when one is being recorded.
    private func record(_ failure: AssertionFailure, sourceLocation: SourceLocation) async {
        guard Test.current != nil else { return }
        Issue.record(Comment(rawValue: failure.description), sourceLocation: sourceLocation)
        if let png = try? await view.screenshot(timeout: .seconds(5)) {
            Attachment.record([UInt8](png), named: "screenshot.png", sourceLocation: sourceLocation)
        }
        if let html = try? await view.evaluateJavaScript("document.documentElement.outerHTML").stringValue {
            Attachment.record(html, named: "page.html", sourceLocation: sourceLocation)
        }
        if let trace = await view.tracing.current() {
            Attachment.record(trace.html(), named: "trace.html", sourceLocation: sourceLocation)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// A string as assertions quote it.
func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        .replacingOccurrences(of: "\n", with: "\\n") + "\""
}

/// `texts` as assertions quote a list.
func quoted(_ texts: [String]) -> String {
    "[" + texts.map(quoted).joined(separator: ", ") + "]"
}

/// Whitespace collapsed and trimmed, as Playwright compares text.
func normalized(_ text: String) -> String {
    text.split(whereSeparator: { $0.isWhitespace || $0 == "\u{200B}" }).joined(separator: " ")
}
