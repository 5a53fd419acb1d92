import Foundation

/// Everything a `WebView` reports, in the order it happened: the one currency
/// of the view's events.
///
/// A view hands each event to its delegate's `webView(_:didReceive:)`, whose
/// default implementation calls the `NavigationDelegate` method for it. The
/// delegate proxy of `NavWatchRx` receives the same values and publishes them
/// under `view.rx`.
public enum WebViewEvent: Sendable, Hashable {
    /// A navigation event: start, redirect, commit, finish, failures, the web
    /// process terminating, a same-document navigation, a new-window request,
    /// a script dialog (after it was answered) or a download.
    case navigation(NavigationEvent)
    /// A step of the main resource or of a subresource.
    case resource(ResourceEvent)
    /// A message in the page's console.
    case consoleMessage(ConsoleMessage)
    /// An error the page did not catch.
    case pageError(PageError)
    /// One of the view's properties changed.
    case propertyChange(WebViewPropertyChange)
    /// The view closed; nothing follows.
    case closed

    /// The navigation event, if this event is one.
    public var navigationEvent: NavigationEvent? {
        if case .navigation(let event) = self { return event }
        return nil
    }
}
