import CNavShim
import Foundation
import NavWatchSupport
import WebKitThread

/// What an action waits for before it acts, as Playwright's actionability
/// checks: the locator must match exactly one element (`strict`), and it
/// must be visible, enabled, editable, stable for two animation frames and
/// hit by the pointer at the point the action uses, as each action needs.
struct Actionability: Encodable {
    var strict = true
    var visible = false
    var enabled = false
    var editable = false
    var stable = false
    var pointer = false

    /// Visible, stable, enabled and receiving the pointer: a click.
    static let pointer = Actionability(visible: true, enabled: true, stable: true, pointer: true)
    /// Only attached (and strict).
    static let attached = Actionability()

    /// What was waited for, for a timeout's message.
    var description: String {
        let states = [(visible, "visible"), (enabled, "enabled"), (editable, "editable"), (stable, "stable"),
                      (pointer, "receiving pointer events")].filter(\.0).map(\.1)
        return states.isEmpty ? "attached" : states.joined(separator: ", ")
    }
}

@WebKitActor
extension Locator {
    // MARK: Actions

    /// Clicks the element's centre with real pointer input (motion, press,
    /// release: trusted events, and a user gesture), once it is visible,
    /// stable, enabled and not covered, and waits for what the click did.
    ///
    /// - Parameters:
    ///   - modifiers: keys held during the click (`["Shift"]`, `["Control"]`).
    ///   - timeout: for the wait and for the navigation the click starts;
    ///     `view.defaultTimeout` when nil.
    /// - Returns: how the navigation the click started ended, or nil when it started none.
    /// - Throws: `InteractionError.strictModeViolation` when several
    ///   elements match; `.timedOut` naming the locator and the last check
    ///   that failed (`element is not visible`, `<div id="overlay">
    ///   intercepts pointer events`); `.unknownKey` for a bad modifier.
    @discardableResult
    public func click(modifiers: [String] = [], timeout: Duration? = nil) async throws(InteractionError) -> PageLoadOutcome? {
        try await view.traced("click \(self)") { () async throws(InteractionError) in
            try await pointer(clicks: 1, modifiers: modifiers, arming: "mouseup", timeout: timeout)
        }
    }

    /// Double-clicks the element, as `click()` clicks it: the page gets two
    /// clicks and a `dblclick`.
    @discardableResult
    public func dblclick(modifiers: [String] = [], timeout: Duration? = nil) async throws(InteractionError) -> PageLoadOutcome? {
        try await view.traced("dblclick \(self)") { () async throws(InteractionError) in
            try await pointer(clicks: 2, modifiers: modifiers, arming: "dblclick", timeout: timeout)
        }
    }

    /// Moves the pointer over the element's centre, once it is visible,
    /// stable and not covered (`mouseover`, `mouseenter`, `mousemove`).
    public func hover(timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("hover \(self)") { () async throws(InteractionError) in
            let timeout = timeout ?? view.defaultTimeout
            let point = try await perform(.pointer, timeout: timeout, act: "return engine.pointOf(element);")
            try send(point, clicks: 0, modifiers: 0)
        }
    }

    /// Checks a checkbox or radio button (an `input`, or an element with
    /// role `checkbox`/`radio`): clicks it unless it is checked already,
    /// then makes sure it is.
    ///
    /// - Throws: `InteractionError.notInteractable` when the element is not
    ///   a checkbox or radio button, or the click did not check it; as `click()`.
    public func check(timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("check \(self)") { () async throws(InteractionError) in
            try await setChecked(true, timeout: timeout)
        }
    }

    /// Unchecks a checkbox, as `check()` checks it.
    public func uncheck(timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("uncheck \(self)") { () async throws(InteractionError) in
            try await setChecked(false, timeout: timeout)
        }
    }

    /// Replaces the text of an `input`, `textarea` or editable element with
    /// `text`, once it is visible, enabled and editable: it takes the focus,
    /// and the page gets trusted `beforeinput` and `input` events (WebKit's
    /// own text insertion); fields that take no typed text (dates, ranges)
    /// get their value set and `input` and `change` events.
    public func fill(_ text: String, timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("fill \(self) \(String(reflecting: text))") { () async throws(InteractionError) in
            var states = Actionability()
            (states.visible, states.enabled, states.editable) = (true, true, true)
            _ = try await perform(states, timeout: timeout ?? view.defaultTimeout,
                                  act: "return engine.fill(element, \(JavaScriptValue.literal(text)));")
        }
    }

    /// Focuses the element, then presses `key` as real keyboard input, with
    /// its modifiers held, and waits for what it did (`Enter` in a form's
    /// field submits it).
    ///
    /// - Parameters:
    ///   - key: Playwright's notation: a character (`a`, `7`), a key name
    ///     (`Enter`, `Escape`, `Tab`, `Backspace`, `Delete`, `ArrowLeft`,
    ///     `Home`, `F1`…`F12`, `KeyA`, `Digit1`, ...), optionally after
    ///     modifiers joined by `+` (`Shift`, `Control`, `Alt`, `Meta`,
    ///     `ControlOrMeta`): `Control+A`, `Shift+ArrowLeft`.
    ///   - timeout: for the wait and for the navigation the key starts;
    ///     `view.defaultTimeout` when nil.
    /// - Returns: how the navigation the key started ended, or nil.
    /// - Throws: `InteractionError.unknownKey` naming the key, before anything is done.
    @discardableResult
    public func press(_ key: String, timeout: Duration? = nil) async throws(InteractionError) -> PageLoadOutcome? {
        try await view.traced("press \(key) on \(self)") { () async throws(InteractionError) in
            guard let chord = KeyChord(key) else { throw .unknownKey(key) }
            let timeout = timeout ?? view.defaultTimeout
            let start = ContinuousClock.now
            let watch = InputNavigationWatch(view: view)
            defer { watch.stop() }
            _ = try await perform(.attached, timeout: timeout, act: "element.focus(); engine.armInput('keyup'); return null;")
            guard let shim = view.shim else { throw .script(.viewClosed) }
            nw_view_send_key_chord(shim, chord.keyval, chord.modifiers)
            return try await watch.follow(timeout: remaining(timeout, since: start), input: "the key \(key) on \(self)") {
                await view.inputHandled()
            }
        }
    }

    /// Focuses the element (`focus` and `focusin` events).
    public func focus(timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("focus \(self)") { () async throws(InteractionError) in
            _ = try await perform(.attached, timeout: timeout ?? view.defaultTimeout, act: "element.focus(); return null;")
        }
    }

    /// Selects the options of a `select` element whose value or label is
    /// one of `values` (only the first, unless it is `multiple`), once it is
    /// visible and enabled, and fires `input` and `change`.
    ///
    /// - Returns: the values of the options now selected.
    /// - Throws: `InteractionError.notInteractable` when it is not a
    ///   `select`, or has no such option.
    @discardableResult
    public func selectOption(_ values: [String], timeout: Duration? = nil) async throws(InteractionError) -> [String] {
        try await view.traced("selectOption \(self) \(values)") { () async throws(InteractionError) in
            var states = Actionability()
            (states.visible, states.enabled) = (true, true)
            let chosen = try await perform(states, timeout: timeout ?? view.defaultTimeout,
                                           act: "return engine.selectOption(element, \(Self.json(values)));")
            guard case .array(let selected) = chosen else { return [] }
            return selected.compactMap(\.stringValue)
        }
    }

    /// `selectOption(_:)` with one value.
    @discardableResult
    public func selectOption(_ value: String, timeout: Duration? = nil) async throws(InteractionError) -> [String] {
        try await selectOption([value], timeout: timeout)
    }

    /// A file to give `setInputFiles(_:)`: its name, type and bytes.
    public struct InputFile: Sendable, Equatable {
        /// The name the page sees (`File.name`).
        public var name: String
        /// The MIME type the page sees (`File.type`).
        public var mimeType: String
        /// The file's bytes.
        public var contents: Data

        /// A file named `name` of type `mimeType` holding `contents`.
        public init(name: String, mimeType: String, contents: Data) {
            (self.name, self.mimeType, self.contents) = (name, mimeType, contents)
        }
    }

    /// Sets the files of an `<input type=file>` (none clears it) and fires
    /// `input` and `change`, as choosing them in a file dialog would.
    public func setInputFiles(_ files: [InputFile], timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("setInputFiles \(self) \(files.map(\.name))") { () async throws(InteractionError) in
            let list = files.map { ["name": $0.name, "mimeType": $0.mimeType, "base64": $0.contents.base64EncodedString()] }
            _ = try await perform(.attached, timeout: timeout ?? view.defaultTimeout,
                                  act: "return engine.setInputFiles(element, \(Self.json(list)));")
        }
    }

    /// Sets the files of an `<input type=file>` to the files at `paths`.
    ///
    /// - Throws: `InteractionError.notInteractable` when a file cannot be read.
    public func setInputFiles(_ paths: [String], timeout: Duration? = nil) async throws(InteractionError) {
        var files: [InputFile] = []
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw .notInteractable(selector: description, reason: "cannot read \(path)")
            }
            files.append(InputFile(name: (path as NSString).lastPathComponent, mimeType: "application/octet-stream",
                                   contents: contents))
        }
        try await setInputFiles(files, timeout: timeout)
    }

    /// Dispatches an event of `type` on the element, whatever its state:
    /// bubbling, cancelable and composed, of the class browsers use for that
    /// type (`MouseEvent` for `click`, `FocusEvent` for `blur`, ...), not
    /// trusted.
    public func dispatchEvent(_ type: String, timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("dispatchEvent \(type) on \(self)") { () async throws(InteractionError) in
            _ = try await perform(.attached, timeout: timeout ?? view.defaultTimeout, act: """
                const [Kind, extra] = engine.eventClass(\(JavaScriptValue.literal(type)));
                element.dispatchEvent(new Kind(\(JavaScriptValue.literal(type)), { bubbles: true, cancelable: true, composed: true, ...extra }));
                return null;
                """)
        }
    }

    /// Scrolls the element into view, once it is visible and stable.
    public func scrollIntoViewIfNeeded(timeout: Duration? = nil) async throws(InteractionError) {
        try await view.traced("scrollIntoViewIfNeeded \(self)") { () async throws(InteractionError) in
            var states = Actionability()
            (states.visible, states.stable) = (true, true)
            _ = try await perform(states, timeout: timeout ?? view.defaultTimeout, act: "return null;")
        }
    }

    // MARK: How actions run

    private func pointer(clicks: Int32, modifiers names: [String], arming event: String,
                         timeout: Duration?) async throws(InteractionError) -> PageLoadOutcome? {
        let modifiers = try Self.modifiers(names)
        let timeout = timeout ?? view.defaultTimeout
        let start = ContinuousClock.now
        let what = clicks == 2 ? "the double click on \(self)" : "the click on \(self)"
        return try await guardedClick(clicks: clicks, modifiers: modifiers, arming: event, what: what,
                                      timeout: timeout, start: start, prepare: "")
    }

    /// Clicks once the element is actionable; when the page moved something
    /// else under the pointer in between (the press landed elsewhere, and
    /// was stopped before the page saw it), checks and clicks again.
    /// `prepare` runs first on the element and may `return null` to click nothing.
    private func guardedClick(clicks: Int32, modifiers: UInt32, arming event: String, what: String,
                              timeout: Duration, start: ContinuousClock.Instant,
                              prepare: String) async throws(InteractionError) -> PageLoadOutcome? {
        while true {
            let watch = InputNavigationWatch(view: view)
            defer { watch.stop() }
            let point = try await perform(.pointer, timeout: remaining(timeout, since: start), reported: timeout, act: """
                \(prepare)
                engine.armInput(\(JavaScriptValue.literal(event)));
                engine.guardHits(element, \(JavaScriptValue.literal(event == "mouseup" ? "click" : event)));
                return engine.pointOf(element);
                """)
            guard point != .null else { return nil }
            try send(point, clicks: clicks, modifiers: modifiers)
            var missed: String?
            let outcome = try await watch.follow(timeout: remaining(timeout, since: start), input: what) {
                let submitted = await view.inputHandled()
                let answer = await view.evaluateForJSON("""
                    \(LocatorEngine.prelude)
                    return engine.missedHit();
                    """, kind: .asyncFunction(world: DocumentScript.world), backstop: .seconds(5))
                missed = ((try? answer.get()) ?? nil).flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) }
                return submitted
            }
            guard let missed else { return outcome }
            if ContinuousClock.now - start >= timeout {
                throw .timedOut(waitingFor: "\(self) to be \(Actionability.pointer.description) (\(missed) received the click)",
                                after: timeout)
            }
        }
    }

    private func setChecked(_ checked: Bool, timeout: Duration?) async throws(InteractionError) {
        let timeout = timeout ?? view.defaultTimeout
        let start = ContinuousClock.now
        _ = try await guardedClick(clicks: 1, modifiers: 0, arming: "mouseup", what: "the click on \(self)",
                                   timeout: timeout, start: start,
                                   prepare: "if (engine.checkedState(element) === \(checked)) return null;")
        let now = try await perform(.attached, timeout: remaining(timeout, since: start), reported: timeout,
                                    act: "return engine.checkedState(element) === true;")
        guard now == .bool(checked) else {
            throw .notInteractable(selector: description, reason: "clicking the checkbox did not change its state")
        }
    }

    private func send(_ point: JavaScriptValue, clicks: Int32, modifiers: UInt32) throws(InteractionError) {
        guard case .object(let fields) = point, case .number(let x)? = fields["x"], case .number(let y)? = fields["y"] else {
            throw .script(.unserializableResult("navwatch's script answered \(point)"))
        }
        guard let shim = view.shim else { throw .script(.viewClosed) }
        nw_view_send_pointer(shim, x, y, clicks, modifiers)
    }

    private static func modifiers(_ names: [String]) throws(InteractionError) -> UInt32 {
        var bits: UInt32 = 0
        for name in names {
            guard let chord = KeyChord(name + "+a") else { throw .unknownKey(name) }
            bits |= chord.modifiers
        }
        return bits
    }

    private func remaining(_ timeout: Duration, since start: ContinuousClock.Instant) -> Duration {
        max(timeout - (ContinuousClock.now - start), .milliseconds(1))
    }

    static func json(_ value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "null"
    }

    /// Waits until the one element this locator matches is in `states`,
    /// then runs `act` (the body of an async function of `element`, with
    /// `engine` in scope) on it and returns its value.
    ///
    /// - Parameter reported: the timeout a timeout error names (the
    ///   caller's, when `timeout` is what is left of it); `timeout` when nil.
    func perform(_ states: Actionability, timeout: Duration, reported: Duration? = nil,
                 act: String) async throws(InteractionError) -> JavaScriptValue {
        let script = """
            \(LocatorEngine.prelude)
            return await engine.perform(\(stepsJSON), \(JavaScriptValue.literal(view.testIdAttribute)), \(Self.json(states)),
              \(Int((timeout.seconds * 1000).rounded())), async element => {
            \(act)
            });
            """
        let answer = try await run(script, timeout: timeout, reported: reported)
        if answer.error == "timeout" {
            throw .timedOut(waitingFor: "\(self) to be \(states.description) (\(answer.message ?? "no element matches"))",
                            after: reported ?? timeout)
        }
        return answer.value ?? .null
    }

    /// The engine's answer to a locator script.
    struct Answer: Decodable {
        var value: JavaScriptValue?
        var error: String?
        var message: String?
        var count: Int?
        var missing: Bool?
    }

    /// Runs a locator script in navwatch's world and turns the engine's
    /// errors other than `timeout` into `InteractionError`s about this
    /// locator. The script keeps to `timeout` itself; a page that keeps its
    /// main thread busy is given up on five seconds after it (a timeout
    /// naming `reported`, or `timeout`).
    func run(_ script: String, timeout: Duration, reported: Duration? = nil) async throws(InteractionError) -> Answer {
        let result = await view.evaluateForJSON(script, kind: .asyncFunction(world: DocumentScript.world),
                                                backstop: timeout + .seconds(5))
        let json: String?
        switch result {
        case .success(let value): json = value
        case .failure(.cancelled) where !Task.isCancelled:
            throw .timedOut(waitingFor: "\(self) (the page did not answer)", after: reported ?? timeout)
        case .failure(let error): throw .script(error)
        }
        guard let json, let answer = try? JSONDecoder().decode(Answer.self, from: Data(json.utf8)) else {
            throw .script(.unserializableResult("navwatch's script answered \(json ?? "nothing")"))
        }
        switch answer.error {
        case "strict"?: throw .strictModeViolation(locator: description, count: answer.count ?? 0)
        case "invalid-selector"?: throw .invalidSelector(selector: description, message: answer.message ?? "")
        case "unknown-role"?: throw .unknownRole(answer.message ?? "")
        case "not-a-checkbox"?: throw .notInteractable(selector: description, reason: "it is not a checkbox or radio button")
        case "no-option"?: throw .notInteractable(selector: description, reason: "it has no option \(answer.message ?? "")")
        case "not-interactable"?: throw .notInteractable(selector: description, reason: answer.message ?? "")
        default: return answer
        }
    }
}
