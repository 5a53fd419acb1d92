import Foundation
import NavWatch
import WebKitThread

/// The `DelegateProxy` of `WebView`'s `NavigationDelegate`: the source of
/// every `view.rx` member. One per view, kept by the view.
@WebKitActor
public final class NavigationDelegateProxy:
    DelegateProxy<WebView, any NavigationDelegate, NavigationDelegateMessage>, DelegateProxyType, NavigationDelegate
{
    let actionPolicies = EventSubject<NavigationAction>()
    let responsePolicies = EventSubject<NavigationResponse>()
    let title: PropertySubject<String?>
    let url: PropertySubject<URL?>
    let isLoading: PropertySubject<Bool>
    let estimatedProgress: PropertySubject<Double>
    let userAgent: PropertySubject<String?>
    let javaScriptEnabled: PropertySubject<Bool>

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

    public static func currentDelegate(for object: WebView) -> (any NavigationDelegate)? {
        object.navigationDelegate
    }

    public static func setCurrentDelegate(_ delegate: (any NavigationDelegate)?, to object: WebView) {
        object.navigationDelegate = delegate
    }

    public var asDelegate: any NavigationDelegate { self }

    // MARK: Methods without a result: observed, then forwarded

    public func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation) {
        forward(.navigation(.didStartProvisionalNavigation(navigation))) {
            $0.webView(webView, didStartProvisionalNavigation: navigation)
        }
    }

    public func webView(_ webView: WebView, didReceiveServerRedirectFor navigation: Navigation, to url: URL) {
        forward(.navigation(.didReceiveServerRedirect(navigation, to: url))) {
            $0.webView(webView, didReceiveServerRedirectFor: navigation, to: url)
        }
    }

    public func webView(_ webView: WebView, didCommit navigation: Navigation, response: NavigationResponse) {
        forward(.navigation(.didCommit(navigation, response))) { $0.webView(webView, didCommit: navigation, response: response) }
    }

    public func webView(_ webView: WebView, didFinish navigation: Navigation) {
        forward(.navigation(.didFinish(navigation))) { $0.webView(webView, didFinish: navigation) }
    }

    public func webView(_ webView: WebView, didFailProvisionalNavigation navigation: Navigation, withError error: NavigationError) {
        forward(.navigation(.didFailProvisionalNavigation(navigation, error))) {
            $0.webView(webView, didFailProvisionalNavigation: navigation, withError: error)
        }
    }

    public func webView(_ webView: WebView, didFail navigation: Navigation, withError error: NavigationError) {
        forward(.navigation(.didFail(navigation, error))) { $0.webView(webView, didFail: navigation, withError: error) }
    }

    public func webViewWebContentProcessDidTerminate(_ webView: WebView, reason: WebProcessTerminationReason) {
        forward(.navigation(.webContentProcessDidTerminate(reason))) {
            $0.webViewWebContentProcessDidTerminate(webView, reason: reason)
        }
    }

    public func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation) {
        forward(.navigation(.sameDocumentNavigation(navigation))) { $0.webView(webView, didSameDocumentNavigation: navigation) }
    }

    public func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest) {
        forward(.navigation(.newWindowRequest(request))) { $0.webView(webView, didRequestNewWindow: request) }
    }

    public func webView(_ webView: WebView, didBecomeDownload download: Download) {
        forward(.navigation(.download(download))) { $0.webView(webView, didBecomeDownload: download) }
    }

    public func webView(_ webView: WebView, resource event: ResourceEvent) {
        forward(.resource(event)) { $0.webView(webView, resource: event) }
    }

    public func webView(_ webView: WebView, didChange property: WebViewPropertyChange) {
        switch property {
        case .title(let value): title.send(value)
        case .url(let value): url.send(value)
        case .isLoading(let value): isLoading.send(value)
        case .estimatedProgress(let value): estimatedProgress.send(value)
        case .userAgent(let value): userAgent.send(value)
        case .javaScriptEnabled(let value): javaScriptEnabled.send(value)
        }
        forward(.propertyChange(property)) { $0.webView(webView, didChange: property) }
    }

    public func webViewDidClose(_ webView: WebView) {
        forward(.closed) { $0.webViewDidClose(webView) }
        completeAll()
    }

    // MARK: Methods with a result: observed, answered by the forward delegate or the default

    public func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        actionPolicies.send(action)
        guard let delegate = forwardDelegate else { return .allow }
        return await delegate.webView(webView, decidePolicyFor: action)
    }

    public func webView(_ webView: WebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        responsePolicies.send(response)
        guard let delegate = forwardDelegate else { return .default(for: response) }
        return await delegate.webView(webView, decidePolicyFor: response)
    }

    /// Script dialogs are answered by the forward delegate (default: accept)
    /// and reported to observers as `.scriptDialog` once answered.
    public func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse {
        var answer = ScriptDialogResponse.accept
        forward(.navigation(.scriptDialog(dialog))) { answer = $0.webView(webView, runScriptDialog: dialog) }
        return answer
    }
}

extension WebView: HasAssociatedObjects {}
