import Foundation
import NavWatch
import Testing

/// The web-first assertions about a locator that `expect(_:timeout:)`
/// returns, as Playwright's `LocatorAssertions`.
///
/// Each one checks the page at once and then after every change of its
/// document (at least every 500 ms) until it holds or its timeout passes;
/// then it throws an `AssertionFailure` (and records it, under Swift
/// Testing, at the caller's source location). Text is compared with
/// whitespace collapsed. An assertion about one element throws
/// `InteractionError.strictModeViolation` at once when several match.
/// Cancelling the awaiting task ends the wait with `CancellationError`.
@WebKitActor
public struct LocatorAssertions {
    let locator: Locator
    let timeout: Duration
    let isNot: Bool

    /// The same assertions, negated: `expect(item).not.toBeVisible()`.
    public var not: LocatorAssertions { LocatorAssertions(locator: locator, timeout: timeout, isNot: !isNot) }

    // MARK: Text

    /// The element's text (`textContent`, or `innerText` with
    /// `useInnerText`) is `expected`, whitespace collapsed.
    public func toHaveText(_ expected: String, useInnerText: Bool = false, timeout: Duration? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await text("toHaveText(\(quoted(expected)))", expected: quoted(expected), useInnerText: useInnerText,
                       timeout: timeout, sourceLocation: sourceLocation) { normalized($0) == normalized(expected) }
    }

    /// The element's text has a match of `regex`.
    public func toHaveText<Output>(_ regex: Regex<Output>, useInnerText: Bool = false, timeout: Duration? = nil,
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await text("toHaveText(/…/)", expected: "a match of the Regex", useInnerText: useInnerText,
                       timeout: timeout, sourceLocation: sourceLocation) { (try? regex.firstMatch(in: $0)) != nil }
    }

    /// The locator matches as many elements as `expected` has, and each
    /// one's text is the corresponding string (a list of items, in order).
    public func toHaveText(_ expected: [String], useInnerText: Bool = false, timeout: Duration? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await texts("toHaveText(\(quoted(expected)))", expected: expected, useInnerText: useInnerText,
                        timeout: timeout, sourceLocation: sourceLocation) { texts in
            texts.count == expected.count && zip(texts, expected).allSatisfy { normalized($0) == normalized($1) }
        }
    }

    /// The element's text contains `expected`, whitespace collapsed.
    public func toContainText(_ expected: String, useInnerText: Bool = false, timeout: Duration? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await text("toContainText(\(quoted(expected)))", expected: "text containing \(quoted(expected))",
                       useInnerText: useInnerText, timeout: timeout, sourceLocation: sourceLocation) {
            normalized($0).contains(normalized(expected))
        }
    }

    /// Some of the elements, in order, contain each of `expected` in turn.
    public func toContainText(_ expected: [String], useInnerText: Bool = false, timeout: Duration? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await texts("toContainText(\(quoted(expected)))", expected: expected, useInnerText: useInnerText,
                        timeout: timeout, sourceLocation: sourceLocation) { texts in
            var remaining = texts.makeIterator()
            return expected.allSatisfy { wanted in
                while let text = remaining.next() { if normalized(text).contains(normalized(wanted)) { return true } }
                return false
            }
        }
    }

    // MARK: Attributes and values

    /// The element's `class` attribute is `expected`, whitespace collapsed.
    public func toHaveClass(_ expected: String, timeout: Duration? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveClass(\(quoted(expected)))", "className", expected: quoted(expected), timeout: timeout,
                      sourceLocation: sourceLocation) { normalized($0.stringValue ?? "") == normalized(expected) }
    }

    /// The element's `class` attribute has a match of `regex`.
    public func toHaveClass<Output>(_ regex: Regex<Output>, timeout: Duration? = nil,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveClass(/…/)", "className", expected: "a class matching the Regex", timeout: timeout,
                      sourceLocation: sourceLocation) { (try? regex.firstMatch(in: $0.stringValue ?? "")) != nil }
    }

    /// The locator matches as many elements as `expected` has, each with
    /// the corresponding `class` attribute.
    public func toHaveClass(_ expected: [String], timeout: Duration? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await every("toHaveClass(\(quoted(expected)))", "className", expected: quoted(expected), timeout: timeout,
                        sourceLocation: sourceLocation) { values in
            values.count == expected.count && zip(values, expected).allSatisfy { normalized($0) == normalized($1) }
        }
    }

    /// The `value` of the `input`, `textarea` or `select` is `expected`.
    public func toHaveValue(_ expected: String, timeout: Duration? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveValue(\(quoted(expected)))", "inputValue", expected: quoted(expected), timeout: timeout,
                      sourceLocation: sourceLocation) { $0.stringValue == expected }
    }

    /// The `value` of the field has a match of `regex`.
    public func toHaveValue<Output>(_ regex: Regex<Output>, timeout: Duration? = nil,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveValue(/…/)", "inputValue", expected: "a value matching the Regex", timeout: timeout,
                      sourceLocation: sourceLocation) { (try? regex.firstMatch(in: $0.stringValue ?? "")) != nil }
    }

    /// The element has attribute `name` with value `value`.
    public func toHaveAttribute(_ name: String, _ value: String, timeout: Duration? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveAttribute(\(quoted(name)), \(quoted(value)))", "attribute", argument: name,
                      expected: "\(name)=\(quoted(value))", timeout: timeout, sourceLocation: sourceLocation) {
            $0.stringValue == value
        }
    }

    /// The element has attribute `name` with a value that has a match of `regex`.
    public func toHaveAttribute<Output>(_ name: String, _ regex: Regex<Output>, timeout: Duration? = nil,
                                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveAttribute(\(quoted(name)), /…/)", "attribute", argument: name,
                      expected: "\(name) matching the Regex", timeout: timeout, sourceLocation: sourceLocation) {
            $0.stringValue.map { (try? regex.firstMatch(in: $0)) != nil } ?? false
        }
    }

    /// The element has attribute `name`, whatever its value.
    public func toHaveAttribute(_ name: String, timeout: Duration? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toHaveAttribute(\(quoted(name)))", "attribute", argument: name, expected: "attribute \(name)",
                      timeout: timeout, sourceLocation: sourceLocation) { $0 != .null }
    }

    /// The locator matches exactly `expected` elements.
    public func toHaveCount(_ expected: Int, timeout: Duration? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toHaveCount(\(expected))", expected: "\(expected)", timeout: timeout,
                       sourceLocation: sourceLocation) {
            guard case .value(.number(let count)) = try await locator.read("count") else { return (expected == 0, "0") }
            return (Int(count) == expected, "\(Int(count))")
        }
    }

    // MARK: States

    /// The element is visible: a non-empty box, not `visibility: hidden`.
    public func toBeVisible(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeVisible()", "visible", expected: "visible", otherwise: "hidden", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    /// The element is not visible, or nothing matches.
    public func toBeHidden(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toBeHidden()", expected: "hidden", timeout: timeout, sourceLocation: sourceLocation) {
            switch try await locator.read("visible") {
            case .missing: return (true, "<element(s) not found>")
            case .value(let visible): return (visible != .bool(true), visible == .bool(true) ? "visible" : "hidden")
            }
        }
    }

    /// The checkbox or radio button is checked.
    public func toBeChecked(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeChecked()", "checked", expected: "checked", otherwise: "unchecked", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    /// The element is enabled.
    public func toBeEnabled(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeEnabled()", "enabled", expected: "enabled", otherwise: "disabled", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    /// The element is disabled.
    public func toBeDisabled(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await one("toBeDisabled()", "enabled", expected: "disabled", timeout: timeout, sourceLocation: sourceLocation,
                      describe: { $0 == .bool(true) ? "enabled" : "disabled" }) { $0 == .bool(false) }
    }

    /// The element takes typed text (an enabled, not read-only field).
    public func toBeEditable(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeEditable()", "editable", expected: "editable", otherwise: "not editable", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    /// The element has no text (a field: no value).
    public func toBeEmpty(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeEmpty()", "empty", expected: "empty", otherwise: "not empty", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    /// The element has the focus.
    public func toBeFocused(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await state("toBeFocused()", "focused", expected: "focused", otherwise: "not focused", timeout: timeout,
                        sourceLocation: sourceLocation)
    }

    // MARK: The loops

    private func state(_ name: String, _ what: String, expected: String, otherwise: String, timeout: Duration?,
                       sourceLocation: SourceLocation) async throws {
        try await one(name, what, expected: expected, timeout: timeout, sourceLocation: sourceLocation,
                      describe: { $0 == .bool(true) ? expected : otherwise }) { $0 == .bool(true) }
    }

    private func text(_ name: String, expected: String, useInnerText: Bool, timeout: Duration?,
                      sourceLocation: SourceLocation, holds: @escaping (String) -> Bool) async throws {
        try await one(name, useInnerText ? "innerText" : "textContent", expected: expected, timeout: timeout,
                      sourceLocation: sourceLocation, describe: { quoted($0.stringValue ?? "") }) { holds($0.stringValue ?? "") }
    }

    private func texts(_ name: String, expected: [String], useInnerText: Bool, timeout: Duration?,
                       sourceLocation: SourceLocation, holds: @escaping ([String]) -> Bool) async throws {
        try await every(name, useInnerText ? "innerText" : "textContent", expected: quoted(expected), timeout: timeout,
                        sourceLocation: sourceLocation, holds: holds)
    }

    /// An assertion about `what` of the one element the locator matches.
    private func one(_ name: String, _ what: String, argument: String? = nil, expected: String, timeout: Duration?,
                     sourceLocation: SourceLocation, describe: @escaping (JavaScriptValue) -> String = { value in
                         value.stringValue.map(quoted) ?? "\(value)"
                     }, holds: @escaping (JavaScriptValue) -> Bool) async throws {
        try await poll(name, expected: expected, timeout: timeout, sourceLocation: sourceLocation) {
            switch try await locator.read(what, argument: argument) {
            case .missing: return (false, "<element(s) not found>")
            case .value(let value): return (holds(value), describe(value))
            }
        }
    }

    /// An assertion about `what` of every element the locator matches.
    private func every(_ name: String, _ what: String, expected: String, timeout: Duration?,
                       sourceLocation: SourceLocation, holds: @escaping ([String]) -> Bool) async throws {
        try await poll(name, expected: expected, timeout: timeout, sourceLocation: sourceLocation) {
            guard case .value(.array(let values)) = try await locator.read(what, all: true) else { return (holds([]), "[]") }
            let strings = values.map { $0.stringValue ?? "" }
            return (holds(strings), quoted(strings))
        }
    }

    private func poll(_ name: String, expected: String, timeout: Duration?, sourceLocation: SourceLocation,
                      probe: @escaping @WebKitActor () async throws -> (holds: Bool, received: String))
        async throws
    {
        let poll = AssertionPoll(view: locator.view, subject: locator.description, timeout: timeout ?? self.timeout,
                                 isNot: isNot)
        try await poll.run(name, expected: expected, sourceLocation: sourceLocation, probe: probe) { interval in
            await locator.waitForChange(upTo: interval)
        }
    }
}
