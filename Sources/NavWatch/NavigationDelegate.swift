import Foundation
import WebKitThread

/// Receives a `WebView`'s navigation events, shaped like Apple's
/// `WKNavigationDelegate`. Every method has a default implementation.
///
/// All methods are called on the WebKit thread, in the order WebKit produced
/// the events. For each navigation exactly one of `didFinish`,
/// `didFailProvisionalNavigation` and `didFail` is called, and nothing about
/// that navigation after it.
@WebKitActor
public protocol NavigationDelegate: AnyObject {
    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation)
    func webView(_ webView: WebView, didReceiveServerRedirectFor navigation: Navigation, to url: URL)
    /// The main response arrived and the new document replaced the old one.
    func webView(_ webView: WebView, didCommit navigation: Navigation, response: NavigationResponse)
    /// The page and its subresources loaded (the `load` event fired).
    func webView(_ webView: WebView, didFinish navigation: Navigation)
    /// The navigation failed before it committed.
    func webView(_ webView: WebView, didFailProvisionalNavigation navigation: Navigation, withError error: NavigationError)
    /// The navigation failed after it committed.
    func webView(_ webView: WebView, didFail navigation: Navigation, withError error: NavigationError)
    /// The web process went away. A navigation in flight then fails with kind
    /// `webProcessCrashed`; the next load starts a new web process.
    func webViewWebContentProcessDidTerminate(_ webView: WebView, reason: WebProcessTerminationReason)

    /// Decides whether a main-frame navigation may start. Answered exactly
    /// once; the default allows.
    func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy
    /// Decides what to do with the main response. Answered exactly once; the
    /// default allows what WebKit can show and downloads the rest (attachments
    /// and MIME types WebKit cannot show), as WebKit would.
    func webView(_ webView: WebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy

    func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation)
    /// The page asked for a new window; none is opened.
    func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest)
    /// Answers a JavaScript dialog synchronously; the default accepts, so a
    /// dialog never stalls a load.
    func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse
    func webView(_ webView: WebView, didBecomeDownload download: Download)

    /// A subresource started, redirected, finished or failed.
    func webView(_ webView: WebView, resource event: ResourceEvent)
    /// The title, URL, loading state or estimated progress changed.
    func webView(_ webView: WebView, didChange property: WebViewPropertyChange)
    /// `close()` was called; no call follows.
    func webViewDidClose(_ webView: WebView)
}

extension NavigationDelegate {
    public func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation) {}
    public func webView(_ webView: WebView, didReceiveServerRedirectFor navigation: Navigation, to url: URL) {}
    public func webView(_ webView: WebView, didCommit navigation: Navigation, response: NavigationResponse) {}
    public func webView(_ webView: WebView, didFinish navigation: Navigation) {}
    public func webView(_ webView: WebView, didFailProvisionalNavigation navigation: Navigation, withError error: NavigationError) {}
    public func webView(_ webView: WebView, didFail navigation: Navigation, withError error: NavigationError) {}
    public func webViewWebContentProcessDidTerminate(_ webView: WebView, reason: WebProcessTerminationReason) {}
    public func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        .allow
    }
    public func webView(_ webView: WebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        NavigationResponsePolicy.default(for: response)
    }
    public func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation) {}
    public func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest) {}
    public func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse { .accept }
    public func webView(_ webView: WebView, didBecomeDownload download: Download) {}
    public func webView(_ webView: WebView, resource event: ResourceEvent) {}
    public func webView(_ webView: WebView, didChange property: WebViewPropertyChange) {}
    public func webViewDidClose(_ webView: WebView) {}
}

extension NavigationResponsePolicy {
    /// WebKit's own default: show what can be shown, download attachments and
    /// MIME types WebKit cannot show.
    public static func `default`(for response: NavigationResponse) -> NavigationResponsePolicy {
        response.canShowMIMEType && !response.isAttachment ? .allow : .download
    }
}
