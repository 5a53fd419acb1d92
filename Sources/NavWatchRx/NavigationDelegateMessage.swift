import NavWatch

/// One call of a `NavigationDelegate` method without a result, as seen by
/// `NavigationDelegateProxy.sentMessage` and `methodInvoked`.
public enum NavigationDelegateMessage: Sendable, Hashable {
    /// A navigation event (start, redirect, commit, finish, failures,
    /// termination, same-document, new window, script dialog, download).
    case navigation(NavigationEvent)
    case resource(ResourceEvent)
    case propertyChange(WebViewPropertyChange)
    /// The view closed; nothing follows.
    case closed

    /// The navigation event, if this message is one.
    public var navigationEvent: NavigationEvent? {
        if case .navigation(let event) = self { return event }
        return nil
    }
}
