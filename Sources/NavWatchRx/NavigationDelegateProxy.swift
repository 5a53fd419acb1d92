import Foundation
// Part of NavWatchRx's API: the views and events its observables are about.
@_exported import NavWatch
import WebKitThread

/// The `DelegateProxy` of `WebView`'s `NavigationDelegate`: the source of
/// every `view.rx` member. One per view, kept by the view.
@WebKitActor
public final class NavigationDelegateProxy:
    DelegateProxy<WebView, any NavigationDelegate, WebViewEvent>, DelegateProxyType, NavigationDelegate
{
    let actionPolicies = EventSubject<NavigationAction>()
    let responsePolicies = EventSubject<NavigationResponse>()
    let title: PropertySubject<String?>
    let url: PropertySubject<URL?>
    let isLoading: PropertySubject<Bool>
    let estimatedProgress: PropertySubject<Double>
    let userAgent: PropertySubject<String?>
    let javaScriptEnabled: PropertySubject<Bool>

    /// The proxy of `parentObject`, its properties' subjects holding their current values; every stream is completed at once when the view is already closed. Use `proxy(for:)`, which makes one per view.
    public required override init(parentObject: WebView) {
        title = PropertySubject(parentObject.title)
        url = PropertySubject(parentObject.url)
        isLoading = PropertySubject(parentObject.isLoading)
        estimatedProgress = PropertySubject(parentObject.estimatedProgress)
        userAgent = PropertySubject(parentObject.userAgent)
        javaScriptEnabled = PropertySubject(parentObject.javaScriptEnabled)
        super.init(parentObject: parentObject)
        registerSubject(complete: actionPolicies.complete, count: { [actionPolicies] in actionPolicies.subscriberCount })
        registerSubject(complete: responsePolicies.complete, count: { [responsePolicies] in responsePolicies.subscriberCount })
        registerSubject(complete: title.complete, count: { [title] in title.subscriberCount })
        registerSubject(complete: url.complete, count: { [url] in url.subscriberCount })
        registerSubject(complete: isLoading.complete, count: { [isLoading] in isLoading.subscriberCount })
        registerSubject(complete: estimatedProgress.complete, count: { [estimatedProgress] in estimatedProgress.subscriberCount })
        registerSubject(complete: userAgent.complete, count: { [userAgent] in userAgent.subscriberCount })
        registerSubject(complete: javaScriptEnabled.complete, count: { [javaScriptEnabled] in javaScriptEnabled.subscriberCount })
        if parentObject.isClosed { completeAll() }
    }

    /// The view's `navigationDelegate`.
    public static func currentDelegate(for object: WebView) -> (any NavigationDelegate)? {
        object.navigationDelegate
    }

    /// Sets the view's `navigationDelegate` (held weakly by the view).
    public static func setCurrentDelegate(_ delegate: (any NavigationDelegate)?, to object: WebView) {
        object.navigationDelegate = delegate
    }

    /// The proxy itself, as the view's delegate.
    public var asDelegate: any NavigationDelegate { self }

    // MARK: Events: observed, then forwarded

    /// Every event of the view: published to `sentMessage`, handed to the
    /// forward delegate (whose default implementation calls the specific
    /// method), then published to `methodInvoked`. Properties are updated
    /// first; `.closed` completes every stream after it was published.
    public func webView(_ webView: WebView, didReceive event: WebViewEvent) {
        if case .propertyChange(let change) = event {
            switch change {
            case .title(let value): title.send(value)
            case .url(let value): url.send(value)
            case .isLoading(let value): isLoading.send(value)
            case .estimatedProgress(let value): estimatedProgress.send(value)
            case .userAgent(let value): userAgent.send(value)
            case .javaScriptEnabled(let value): javaScriptEnabled.send(value)
            }
        }
        forward(event) { $0.webView(webView, didReceive: event) }
        if case .closed = event { completeAll() }
    }

    // MARK: Questions: observed, answered by the forward delegate or the protocol's default

    /// The delegate that answers: the forward delegate, or the protocol's defaults.
    private var decider: any NavigationDelegate {
        forwardDelegate ?? DefaultNavigationDelegate.shared
    }

    /// Publishes `action` to `view.rx.decidePolicyNavigationAction`, then
    /// returns the forward delegate's answer (without one, the default: allow).
    public func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        actionPolicies.send(action)
        return await decider.webView(webView, decidePolicyFor: action)
    }

    /// Publishes `response` to `view.rx.decidePolicyNavigationResponse`, then
    /// returns the forward delegate's answer (without one, the default: show
    /// what WebKit can show, download the rest).
    public func webView(_ webView: WebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        responsePolicies.send(response)
        return await decider.webView(webView, decidePolicyFor: response)
    }

    /// Answered by the forward delegate (or the default, accept); observers
    /// see the dialog as a `.scriptDialog` event once it was answered.
    public func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse {
        decider.webView(webView, runScriptDialog: dialog)
    }
}

extension WebView: HasAssociatedObjects {
    /// Where `DelegateProxyType`s keep their proxies for this view: a proxy of
    /// your own for `WebView` is kept here too. Lives as long as the view.
    public var associatedObjects: [ObjectIdentifier: AnyObject] {
        get { attachments }
        set { attachments = newValue }
    }
}
