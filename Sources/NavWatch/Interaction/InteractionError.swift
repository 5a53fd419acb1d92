import Foundation
import NavWatchSupport

/// Why an interaction (a locator's action or query, `click`, `fill`,
/// `press`, `submit`, `waitFor`, `goBack`, ...) could not do what it was asked.
public enum InteractionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No element of the page matches the selector.
    case noMatch(selector: String)
    /// The selector is not valid CSS.
    case invalidSelector(selector: String, message: String)
    /// An element matches, but cannot take the input: `reason` says why
    /// (hidden, covered by another element, disabled, not a text field, not in a form).
    case notInteractable(selector: String, reason: String)
    /// `press` got a key name it does not know.
    case unknownKey(String)
    /// `getByRole` got a role that is not an ARIA role.
    case unknownRole(String)
    /// An action or a query of one element found `count` elements matching
    /// `locator` (Playwright's strict mode): narrow it with `nth`, `first`,
    /// `filter` or a more precise locator.
    case strictModeViolation(locator: String, count: Int)
    /// What was awaited did not happen within the time allowed.
    case timedOut(waitingFor: String, after: Duration)
    /// The script navwatch ran in the page failed (the view closed, the
    /// predicate threw, the page went away).
    case script(JavaScriptError)
    /// A download started but was not written: the server or the network
    /// failed it, or the view closed first.
    case downloadFailed(url: String, message: String)

    /// What went wrong, in one line naming the selector, key or wait.
    public var description: String {
        switch self {
        case .noMatch(let selector): return "no element matches \(selector)"
        case .invalidSelector(let selector, let message): return "\(selector) is not a valid selector: \(message)"
        case .notInteractable(let selector, let reason): return "\(selector) cannot take input: \(reason)"
        case .unknownKey(let key): return "unknown key \(key)"
        case .unknownRole(let role): return "unknown ARIA role \(role)"
        case .strictModeViolation(let locator, let count):
            return "strict mode violation: \(locator) matches \(count) elements, and the action needs one"
        case .timedOut(let what, let timeout): return "timed out after \(timeout.seconds) s waiting for \(what)"
        case .script(let error): return error.description
        case .downloadFailed(let url, let message): return "the download of \(url) failed: \(message)"
        }
    }
}
