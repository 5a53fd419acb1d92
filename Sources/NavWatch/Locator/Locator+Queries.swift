import Foundation
import NavWatchSupport
import WebKitThread

@WebKitActor
extension Locator {
    // MARK: Queries

    /// How many elements this locator matches now (no waiting).
    public func count() async throws(InteractionError) -> Int {
        guard case .value(.number(let count)) = try await read("count") else { return 0 }
        return Int(count)
    }

    /// The element's `textContent`, once one element matches.
    public func textContent(timeout: Duration? = nil) async throws(InteractionError) -> String? {
        try await value("return element.textContent;", timeout: timeout).stringValue
    }

    /// The element's `innerText` (its text as rendered), once one element matches.
    public func innerText(timeout: Duration? = nil) async throws(InteractionError) -> String {
        try await value("return element.innerText;", timeout: timeout).stringValue ?? ""
    }

    /// The `value` of an `input`, `textarea` or `select`, once one element matches.
    ///
    /// - Throws: `InteractionError.notInteractable` for other elements.
    public func inputValue(timeout: Duration? = nil) async throws(InteractionError) -> String {
        try await value("return engine.query(element, 'inputValue');", timeout: timeout).stringValue ?? ""
    }

    /// The element's attribute `name`, or nil when it has none, once one element matches.
    public func getAttribute(_ name: String, timeout: Duration? = nil) async throws(InteractionError) -> String? {
        try await value("return element.getAttribute(\(JavaScriptValue.literal(name)));", timeout: timeout).stringValue
    }

    /// The `innerText` of every element this locator matches now, in order.
    public func allInnerTexts() async throws(InteractionError) -> [String] {
        try await all("innerText")
    }

    /// The `textContent` of every element this locator matches now, in order.
    public func allTextContents() async throws(InteractionError) -> [String] {
        try await all("textContent")
    }

    /// Whether the element is visible now (a non-empty box, not
    /// `visibility: hidden`); false when nothing matches. No waiting.
    public func isVisible() async throws(InteractionError) -> Bool {
        guard case .value(.bool(let visible)) = try await read("visible") else { return false }
        return visible
    }

    /// `!isVisible()`.
    public func isHidden() async throws(InteractionError) -> Bool {
        try await !isVisible()
    }

    /// Whether the checkbox or radio button is checked, once one element matches.
    ///
    /// - Throws: `InteractionError.notInteractable` when it is neither.
    public func isChecked(timeout: Duration? = nil) async throws(InteractionError) -> Bool {
        try await value("return engine.query(element, 'checked');", timeout: timeout) == .bool(true)
    }

    /// Whether the element is enabled (not `disabled`, not in a disabled
    /// `fieldset`, not `aria-disabled`), once one element matches.
    public func isEnabled(timeout: Duration? = nil) async throws(InteractionError) -> Bool {
        try await value("return engine.query(element, 'enabled');", timeout: timeout) == .bool(true)
    }

    /// `!isEnabled()`.
    public func isDisabled(timeout: Duration? = nil) async throws(InteractionError) -> Bool {
        try await !isEnabled(timeout: timeout)
    }

    /// Whether the element takes typed text: an enabled, not read-only
    /// field, or an editable element; once one element matches.
    public func isEditable(timeout: Duration? = nil) async throws(InteractionError) -> Bool {
        try await value("return engine.query(element, 'editable');", timeout: timeout) == .bool(true)
    }

    // MARK: Reading now, for assertions

    /// What `read` found.
    package enum Reading: Equatable, Sendable {
        /// The value for the one element (or for all, or the count).
        case value(JavaScriptValue)
        /// Nothing matches.
        case missing
    }

    /// Reads `what` of what this locator matches now, without waiting:
    /// `count`, or one of the engine's queries (`textContent`, `innerText`,
    /// `inputValue`, `attribute` with `argument`, `visible`, `checked`,
    /// `enabled`, `editable`, `focused`, `empty`, `className`) of the one
    /// element, or of every element with `all`.
    ///
    /// - Throws: `InteractionError.strictModeViolation` when a one-element
    ///   query matches several, and the locator's other errors.
    package func read(_ what: String, argument: String? = nil, all: Bool = false) async throws(InteractionError) -> Reading {
        let script = """
            \(LocatorEngine.prelude)
            return engine.read(\(stepsJSON), \(JavaScriptValue.literal(view.testIdAttribute)),
              \(JavaScriptValue.literal(what)), \(argument.map(JavaScriptValue.literal) ?? "null"), \(all));
            """
        let answer = try await run(script, timeout: view.defaultTimeout)
        if answer.missing == true { return .missing }
        return .value(answer.value ?? .null)
    }

    /// Returns after the page's document next changes, or after `limit`.
    package func waitForChange(upTo limit: Duration) async {
        let milliseconds = max(1, Int((limit.seconds * 1000).rounded()))
        _ = await view.evaluateForJSON("""
            \(LocatorEngine.prelude)
            await engine.nextChange(\(milliseconds));
            return null;
            """, kind: .asyncFunction(world: DocumentScript.world), backstop: limit + .seconds(1))
    }

    private func value(_ body: String, timeout: Duration?) async throws(InteractionError) -> JavaScriptValue {
        try await perform(.attached, timeout: timeout ?? view.defaultTimeout, act: body)
    }

    private func all(_ what: String) async throws(InteractionError) -> [String] {
        guard case .value(.array(let values)) = try await read(what, all: true) else { return [] }
        return values.map { $0.stringValue ?? "" }
    }
}
