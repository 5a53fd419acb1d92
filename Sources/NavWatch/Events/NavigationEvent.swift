import Foundation

/// Everything a `WebView` reports about its navigations, in the order WebKit
/// produced it. `NavigationDelegate` receives the same facts as method calls.
public enum NavigationEvent: Sendable, Hashable {
    case didStartProvisionalNavigation(Navigation)
    case didReceiveServerRedirect(Navigation, to: URL)
    case didCommit(Navigation, NavigationResponse)
    case didFinish(Navigation)
    case didFailProvisionalNavigation(Navigation, NavigationError)
    case didFail(Navigation, NavigationError)
    case webContentProcessDidTerminate(WebProcessTerminationReason)
    case sameDocumentNavigation(SameDocumentNavigation)
    case newWindowRequest(NewWindowRequest)
    case scriptDialog(ScriptDialog)
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
    case crashed = 0
    case exceededMemoryLimit = 1
    /// `WebView.terminateWebProcess()`, or navwatch recovering from a hung process.
    case terminatedByAPI = 2
}

/// The URL changed inside the current document, with no load cycle:
/// `history.pushState`, `replaceState`, or a fragment change.
public struct SameDocumentNavigation: Sendable, Hashable {
    /// The navigation whose document changed its URL, if one is known.
    public let navigation: Navigation?
    public let url: URL
}

/// The page asked for a new window (`target=_blank`, `window.open`). No
/// window is ever opened; the request is only reported.
public struct NewWindowRequest: Sendable, Hashable {
    public let url: URL?
    public let targetFrameName: String?
    public let isUserGesture: Bool
}

/// A JavaScript dialog and how it was answered.
public struct ScriptDialog: Sendable, Hashable {
    public enum Kind: Int, Sendable, Hashable {
        case alert = 0, confirm, prompt, beforeUnload
    }

    public let kind: Kind
    public let message: String
    /// For prompts, the default text the page offered.
    public let defaultText: String?
}

/// The answer to a `ScriptDialog`.
public enum ScriptDialogResponse: Sendable, Hashable {
    /// OK, and for a prompt its default text.
    case accept
    /// OK with this text (prompts; other dialogs just accept).
    case acceptWithText(String)
    /// Cancel (confirm, prompt and before-unload; an alert just closes).
    case dismiss
}

/// A response that became a download. Nothing is written to disk.
public struct Download: Sendable, Hashable {
    public let navigation: Navigation?
    public let url: URL
    public let response: NavigationResponse
}
