import CNavShim
import Foundation
import WebKitThread

// Interaction and waiting: what an end-to-end test does with a page.
//
// Every script navwatch runs for these lives in its own script world (the
// document script's), so a page that replaces `document.querySelector` or
// `addEventListener` changes nothing; only `waitFor(script:)` runs in the
// page's world, because its predicate is about the page's own state.
extension WebView {
    /// The default time `click`, `press`, `submit` and `waitFor` allow.
    public static let defaultInteractionTimeout: Duration = .seconds(30)

    /// Clicks the centre of the first element matching `selector`, after
    /// scrolling it into view, and waits for what the click did.
    ///
    /// The click is real input: pointer motion, button press and release,
    /// delivered to the view as the window system would, so the page sees
    /// trusted `mousedown`, `mouseup` and `click` events and a popup it opens
    /// counts as opened by a user gesture.
    ///
    /// - Returns: how the navigation the click started ended (when it started
    ///   one: a link, a form's button, a script setting `location`), or nil.
    /// - Throws: `InteractionError.noMatch` when nothing matches,
    ///   `.notInteractable` when the element has no size, lies outside the
    ///   viewport, is covered by another element or is disabled, `.timedOut`
    ///   when the page did not take the click or the navigation did not end
    ///   within `timeout`, `.script(.cancelled)` when the awaiting task is
    ///   cancelled (the click and its navigation are not undone).
    @discardableResult
    public func click(_ selector: String, timeout: Duration = defaultInteractionTimeout)
        async throws(InteractionError) -> PageLoadOutcome?
    {
        let watch = InputNavigationWatch(view: self)
        defer { watch.stop() }
        let answer = try await runInWorld(InteractionScripts.locate(selector, arming: "mouseup"), for: selector)
        guard let x = answer.x, let y = answer.y, let shim else { throw .script(.viewClosed) }
        nw_view_send_click(shim, x, y)
        return try await watch.follow(timeout: timeout, input: "the click on \(selector)") { await self.inputHandled() }
    }

    /// Replaces the text of the first text field (`input`, `textarea`, or an
    /// editable element) matching `selector` with `text`, as typing would:
    /// it takes the focus, and the page gets trusted `beforeinput` and
    /// `input` events (WebKit's own text insertion), and a trusted `change`
    /// when the focus moves on. Fields that take no typed text (dates,
    /// ranges) get their value set and untrusted `input` and `change` events.
    ///
    /// - Throws: `InteractionError.noMatch`, or `.notInteractable` when the
    ///   element is not a text field, or is disabled or read-only.
    public func fill(_ selector: String, _ text: String) async throws(InteractionError) {
        _ = try await runInWorld(InteractionScripts.fill(selector, text: text), for: selector)
    }

    /// Presses and releases `key` in the element that has the focus, as real
    /// keyboard input (trusted `keydown`, `keypress`, `keyup`, and the text it
    /// types), and waits for what it did (`Enter` in a form's field submits it).
    ///
    /// - Parameter key: Playwright's notation, as `Locator.press(_:timeout:)`
    ///   takes it: `a`, `Enter`, `Control+A`.
    /// - Parameter timeout: how long to wait for what the key press started, as `click` waits.
    /// - Returns: how the navigation it started ended, or nil.
    /// - Throws: `InteractionError.unknownKey`, `.timedOut` as `click` does.
    @discardableResult
    public func press(_ key: String, timeout: Duration = defaultInteractionTimeout)
        async throws(InteractionError) -> PageLoadOutcome?
    {
        guard let chord = KeyChord(key) else { throw .unknownKey(key) }
        let watch = InputNavigationWatch(view: self)
        defer { watch.stop() }
        _ = try await runInWorld(InteractionScripts.arm("keyup"), for: key)
        guard let shim else { throw .script(.viewClosed) }
        nw_view_send_key_chord(shim, chord.keyval, chord.modifiers)
        return try await watch.follow(timeout: timeout, input: "the key \(key)") { await self.inputHandled() }
    }

    /// Submits the form matching `selector`, or the form of the element
    /// matching it, as its submit button would (`requestSubmit()`: the page's
    /// `submit` listeners run and its validation applies), and waits for the
    /// navigation it starts. Not user input: no user gesture.
    ///
    /// - Returns: how the navigation ended, or nil when there was none (a
    ///   listener prevented it, or validation failed).
    /// - Throws: `InteractionError.noMatch`, `.notInteractable` when the
    ///   element is not a form or in one, `.timedOut` as `click` does.
    @discardableResult
    public func submit(_ selector: String, timeout: Duration = defaultInteractionTimeout)
        async throws(InteractionError) -> PageLoadOutcome?
    {
        let watch = InputNavigationWatch(view: self)
        defer { watch.stop() }
        _ = try await runInWorld(InteractionScripts.submit(selector), for: selector)
        return try await watch.follow(timeout: timeout, input: "the submission of \(selector)") { await self.inputHandled() }
    }

    /// Waits until an element matching `selector` is in the document shown
    /// now (at once when one already is). The page tells when: a mutation
    /// observer checks after every change to the document, nothing polls.
    ///
    /// - Throws: `InteractionError.timedOut` naming the selector, or
    ///   `.invalidSelector`; `.script(.cancelled)` when the task is cancelled.
    public func waitFor(selector: String, timeout: Duration = defaultInteractionTimeout) async throws(InteractionError) {
        let answer = try await runInWorld(InteractionScripts.waitForSelector(selector, timeout: timeout), for: selector,
                                          timeout: timeout)
        if answer.found != true { throw .timedOut(waitingFor: "an element matching \(selector)", after: timeout) }
    }

    /// Waits until the JavaScript expression `predicate`, evaluated in the
    /// page's own world, is truthy: checked at once, then after every change
    /// to the document (a mutation observer; nothing polls). A predicate about
    /// state the page keeps outside the document is checked only when the
    /// document changes too.
    ///
    /// - Throws: `InteractionError.timedOut` naming the predicate,
    ///   `.script(.exception)` when it throws.
    public func waitFor(script predicate: String, timeout: Duration = defaultInteractionTimeout) async throws(InteractionError) {
        let answer = try await runInWorld(InteractionScripts.waitForPredicate(predicate, timeout: timeout), for: predicate,
                                          world: nil, timeout: timeout)
        if let thrown = answer.thrown { throw .script(.exception(message: thrown, line: nil)) }
        if answer.found != true { throw .timedOut(waitingFor: "\(predicate) to be true", after: timeout) }
    }

    /// Returns once the page has handled the input armed with `InteractionScripts.arm`
    /// (or the document went away): whether the input submitted a form, a
    /// submission no listener prevented (false when the document went away).
    func inputHandled() async -> Bool {
        let answer = try? await evaluateForJSON(InteractionScripts.inputHandled, kind: .asyncFunction(world: DocumentScript.world))
        return answer == "true"
    }

    /// Runs one of `InteractionScripts` as an async function in `world` and
    /// turns its `{error: ...}` answers into errors about `target`. With a
    /// `timeout`, gives up one second after it (the script keeps its own).
    /// Cancelling the awaiting task cancels the evaluation (`.script(.cancelled)`).
    private func runInWorld(_ script: String, for target: String, world: String? = DocumentScript.world,
                            timeout: Duration? = nil) async throws(InteractionError) -> InteractionScripts.Answer {
        let result = await evaluateForJSON(script, kind: .asyncFunction(world: world),
                                           backstop: timeout.map { $0 + .seconds(1) })
        if let timeout, case .failure(.cancelled) = result, !Task.isCancelled {
            throw .timedOut(waitingFor: target, after: timeout)
        }
        let json: String?
        switch result {
        case .success(let value): json = value
        case .failure(let error): throw .script(error)
        }
        guard let json, let answer = try? JSONDecoder().decode(InteractionScripts.Answer.self, from: Data(json.utf8)) else {
            throw .script(.unserializableResult("navwatch's script answered \(json ?? "nothing")"))
        }
        switch answer.error {
        case "no-match"?: throw .noMatch(selector: target)
        case "invalid-selector"?: throw .invalidSelector(selector: target, message: answer.message ?? "")
        case "not-interactable"?: throw .notInteractable(selector: target, reason: answer.message ?? "")
        default: return answer
        }
    }
}
