import Foundation

/// Everything a `WebView` reports about its navigations, in the order WebKit
/// produced it. `NavigationDelegate` receives the same facts as method calls.
public enum NavigationEvent: Sendable, Hashable {
    /// The navigation started; nothing is committed yet. Its first event.
    case didStartProvisionalNavigation(Navigation)
    /// The server redirected the navigation to `to`; one event per hop, before
    /// the commit.
    case didReceiveServerRedirect(Navigation, to: URL)
    /// The main response arrived and the new document replaced the old one.
    case didCommit(Navigation, NavigationResponse)
    /// The page and its subresources loaded (the `load` event fired): the
    /// navigation's terminal event.
    case didFinish(Navigation)
    /// The navigation failed before it committed: its terminal event.
    case didFailProvisionalNavigation(Navigation, NavigationError)
    /// The navigation failed after it committed: its terminal event.
    case didFail(Navigation, NavigationError)
    /// The web process went away. A navigation in flight then fails with kind
    /// `webProcessCrashed`.
    case webContentProcessDidTerminate(WebProcessTerminationReason)
    /// The URL changed inside the current document.
    case sameDocumentNavigation(SameDocumentNavigation)
    /// The page asked for a new window; none is opened.
    case newWindowRequest(NewWindowRequest)
    /// A JavaScript dialog, reported after it was answered.
    case scriptDialog(ScriptDialog)
    /// The main response became a download; the navigation then ends with a
    /// provisional failure of kind `policy`.
    case download(Download)

    /// The navigation this event belongs to, if any.
    public var navigation: Navigation? {
        switch self {
        case .didStartProvisionalNavigation(let n), .didReceiveServerRedirect(let n, _), .didCommit(let n, _),
             .didFinish(let n), .didFailProvisionalNavigation(let n, _), .didFail(let n, _):
            return n
        case .sameDocumentNavigation(let s): return s.navigation
        case .download(let d): return d.navigation
        case .webContentProcessDidTerminate, .newWindowRequest, .scriptDialog:
            return nil
        }
    }

    /// Whether this event ends its navigation (finish or either failure).
    public var isTerminal: Bool {
        switch self {
        case .didFinish, .didFailProvisionalNavigation, .didFail: return true
        default: return false
        }
    }
}

/// Why the web process went away.
public enum WebProcessTerminationReason: Int, Sendable, Hashable {
    /// The web process crashed.
    case crashed = 0
    /// WebKit ended the web process because it used more memory than allowed.
    case exceededMemoryLimit = 1
    /// `WebView.terminateWebProcess()`, or navwatch recovering from a hung process.
    case terminatedByAPI = 2
}

/// The URL changed inside the current document, with no load cycle:
/// `history.pushState`, `replaceState`, a fragment change, or going back or
/// forward between entries of the same document.
public struct SameDocumentNavigation: Sendable, Hashable {
    /// How the document's URL changed. The cases are those of Apple's
    /// `WKSameDocumentNavigationType`.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// `history.pushState`: a new history entry (Apple's `sessionStatePush`).
        case push
        /// `history.replaceState`: the current entry's URL changed, no new
        /// entry (Apple's `sessionStateReplace`).
        case replace
        /// `history.back()`, `forward()`, `go(n)` or the view's own back and
        /// forward, between entries of this document (Apple's `sessionStatePop`).
        case pop
        /// A fragment navigation: a link to `#name`, `location.hash = …` or
        /// `location.replace("#…")` (Apple's `anchorNavigation`). The page
        /// saw `popstate` and, when only the fragment changed, `hashchange`.
        case fragment
    }

    /// The navigation whose document changed its URL, if one is known.
    public let navigation: Navigation?
    /// The document's new URL.
    public let url: URL
    /// How it changed.
    public let kind: Kind
}

/// The page asked for a new window (`target=_blank`, `window.open`). No
/// window is ever opened; the request is only reported.
public struct NewWindowRequest: Sendable, Hashable {
    /// The URL the page asked to open; nil when it gave none (`window.open()`).
    public let url: URL?
    /// The target it named (`_blank`, or the name given to `window.open`), when any.
    public let targetFrameName: String?
    /// Whether a user's click or key press caused it (a script acting on its
    /// own is not one).
    public let isUserGesture: Bool
}

/// A JavaScript dialog the page opened. No person is asked: the view's
/// dialog handler (`WebView.onDialog(_:)`) or its delegate
/// (`NavigationDelegate.webView(_:runScriptDialog:)`) answers it at once,
/// and the dialog is then reported with its answer (`scriptDialog`).
public struct ScriptDialog: Sendable, Hashable {
    /// What opened the dialog: one of the dialog functions of JavaScript, or
    /// a `beforeunload` handler asking whether to leave the page.
    public enum Kind: Int, Sendable, Hashable {
        /// `alert`, `confirm`, `prompt`, or the page's `beforeunload` prompt.
        case alert = 0, confirm, prompt, beforeUnload
    }

    /// Which kind of dialog it is.
    public let kind: Kind
    /// The text the page asked the dialog to show.
    public let message: String
    /// For prompts, the default text the page offered.
    public let defaultText: String?
    /// How it was answered: nil while it is being asked, set in the
    /// `scriptDialog` event that reports it.
    public internal(set) var answer: ScriptDialogResponse?

    init(kind: Kind, message: String, defaultText: String?, answer: ScriptDialogResponse? = nil) {
        self.kind = kind
        self.message = message
        self.defaultText = defaultText
        self.answer = answer
    }
}

extension ScriptDialog.Kind: CustomStringConvertible {
    /// As Playwright names dialog types: `alert`, `confirm`, `prompt`, `beforeunload`.
    public var description: String {
        switch self {
        case .alert: "alert"
        case .confirm: "confirm"
        case .prompt: "prompt"
        case .beforeUnload: "beforeunload"
        }
    }
}

/// The answer to a `ScriptDialog`.
public enum ScriptDialogResponse: Sendable, Hashable, CustomStringConvertible {
    /// OK, and for a prompt its default text.
    case accept
    /// OK with this text (prompts; other dialogs just accept).
    case acceptWithText(String)
    /// Cancel (confirm, prompt and before-unload; an alert just closes).
    case dismiss

    /// `accepted`, `accepted "text"` or `dismissed`.
    public var description: String {
        switch self {
        case .accept: "accepted"
        case .acceptWithText(let text): "accepted \(text.debugDescription)"
        case .dismiss: "dismissed"
        }
    }
}

/// A response that became a download. Nothing is written to disk.
public struct Download: Sendable, Hashable {
    /// The navigation whose response it was, if one is known.
    public let navigation: Navigation?
    /// The URL of the response that became the download.
    public let url: URL
    /// The main response that became the download; its body is not kept.
    public let response: NavigationResponse
}
