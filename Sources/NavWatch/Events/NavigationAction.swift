import Foundation

/// A request to navigate, offered to the delegate before anything loads.
public struct NavigationAction: Sendable, Hashable {
    /// What caused the navigation, as WebKit tells it.
    public enum Kind: Int, Sendable, Hashable {
        /// A click on a link, a form submitted, a move in the history, a reload, a
        /// form submitted again (a reload or history move to a form's result), or
        /// anything else (a script, a load the caller asked for).
        case linkClicked = 0, formSubmitted, backForward, reload, formResubmitted, other
    }

    /// The URL to be requested.
    public let url: URL
    /// The request's method (`GET`, `POST`, ...), when WebKit says.
    public let httpMethod: String?
    /// What caused it.
    public let kind: Kind
    /// Whether this request follows a server redirect of the current navigation.
    public let isRedirect: Bool
    /// Whether a user's click or key press caused it (a script acting on its
    /// own is not one).
    public let isUserGesture: Bool
    /// For new-window requests, the target frame name (`_blank`, or a name given to `window.open`).
    public let targetFrameName: String?

    /// Makes an action from its parts, for delegates and tests; a view asks its
    /// delegate about the actions of its navigations itself.
    public init(url: URL, httpMethod: String?, kind: Kind, isRedirect: Bool, isUserGesture: Bool,
                targetFrameName: String?) {
        self.url = url
        self.httpMethod = httpMethod
        self.kind = kind
        self.isRedirect = isRedirect
        self.isUserGesture = isUserGesture
        self.targetFrameName = targetFrameName
    }
}

/// The delegate's answer to a `NavigationAction`.
public enum NavigationActionPolicy: Sendable, Hashable {
    /// Go ahead.
    case allow
    /// Do not load. A navigation the caller started ends with a provisional
    /// failure of kind `policy`.
    case cancel
    /// Do not show it; report it as a download instead.
    case download
}

/// The delegate's answer to a `NavigationResponse`.
public enum NavigationResponsePolicy: Sendable, Hashable {
    /// Show the response.
    case allow
    /// Drop it: the navigation ends with a provisional failure of kind `policy`.
    case cancel
    /// Report it as a download (`didBecomeDownload`) and do not show it. The
    /// body is never written to disk; the navigation then ends with a
    /// provisional failure of kind `policy`, as in WebKit.
    case download
}
