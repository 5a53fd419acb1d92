import Foundation
import WebKitThread

/// Receives a `WebView`'s navigation events, shaped like Apple's
/// `WKNavigationDelegate`. Every method has a default implementation.
///
/// All methods are called on the WebKit thread, in the order WebKit produced
/// the events. For each navigation exactly one of `didFinish`,
/// `didFailProvisionalNavigation` and `didFail` is called, and nothing about
/// that navigation after it. When `didFinish` is called, `webView.title` is
/// the finished document's title.
///
/// Every event reaches `webView(_:didReceive:)` first; its default
/// implementation calls the method below that matches the event. Methods
/// with a result (policies, script dialogs) are questions, not events: the
/// view asks them, then reports what was decided as an event where there is one.
@WebKitActor
public protocol NavigationDelegate: AnyObject {
    /// Every event of the view, in order. The default calls the specific
    /// method for `event`; implement this instead to receive all of them in one place.
    func webView(_ webView: WebView, didReceive event: WebViewEvent)

    /// The navigation started: the first call for `navigation`, before any
    /// response.
    func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation)
    /// The server redirected `navigation` to `url`; called once per hop, before
    /// the commit.
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

    /// The URL changed inside the current document (`history.pushState`,
    /// `replaceState`, a fragment change), with no load.
    func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation)
    /// The page asked for a new window. It opens, in a view of its own, only
    /// for `WebView.waitForPopup(timeout:_:)` and `onPopup(_:)`; otherwise none is opened.
    func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest)
    /// Answers a JavaScript dialog synchronously, when the view's dialog
    /// handler (`WebView.onDialog(_:)`) did not; the default answers as the
    /// view's configuration says (`unansweredDialogs`: accept, unless set),
    /// so a dialog never stalls a load. The dialog is then reported as an
    /// event, with its answer.
    func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse
    /// A script dialog was answered.
    func webView(_ webView: WebView, didAnswerScriptDialog dialog: ScriptDialog)
    /// The main response became a download (the response policy said so);
    /// nothing is written to disk, and the navigation then fails provisionally
    /// with kind `policy`.
    func webView(_ webView: WebView, didBecomeDownload download: Download)

    /// A subresource started, redirected, finished or failed.
    func webView(_ webView: WebView, resource event: ResourceEvent)
    /// The page's console received a message (from the first script of a
    /// document to its end, after the commit that shows the document).
    func webView(_ webView: WebView, didLog message: ConsoleMessage)
    /// The page's JavaScript threw an error or rejected a promise nobody caught.
    func webView(_ webView: WebView, didThrow error: PageError)
    /// The title, URL, loading state or estimated progress changed.
    func webView(_ webView: WebView, didChange property: WebViewPropertyChange)
    /// `close()` was called; no call follows.
    func webViewDidClose(_ webView: WebView)
}

extension NavigationDelegate {
    /// Calls the method below that matches `event`.
    public func webView(_ webView: WebView, didReceive event: WebViewEvent) {
        switch event {
        case .navigation(let navigationEvent):
            switch navigationEvent {
            case .didStartProvisionalNavigation(let n): self.webView(webView, didStartProvisionalNavigation: n)
            case .didReceiveServerRedirect(let n, let url): self.webView(webView, didReceiveServerRedirectFor: n, to: url)
            case .didCommit(let n, let response): self.webView(webView, didCommit: n, response: response)
            case .didFinish(let n): self.webView(webView, didFinish: n)
            case .didFailProvisionalNavigation(let n, let error):
                self.webView(webView, didFailProvisionalNavigation: n, withError: error)
            case .didFail(let n, let error): self.webView(webView, didFail: n, withError: error)
            case .webContentProcessDidTerminate(let reason): webViewWebContentProcessDidTerminate(webView, reason: reason)
            case .sameDocumentNavigation(let s): self.webView(webView, didSameDocumentNavigation: s)
            case .newWindowRequest(let r): self.webView(webView, didRequestNewWindow: r)
            case .scriptDialog(let d): self.webView(webView, didAnswerScriptDialog: d)
            case .download(let d): self.webView(webView, didBecomeDownload: d)
            }
        case .resource(let resourceEvent): self.webView(webView, resource: resourceEvent)
        case .consoleMessage(let message): self.webView(webView, didLog: message)
        case .pageError(let error): self.webView(webView, didThrow: error)
        case .propertyChange(let change): self.webView(webView, didChange: change)
        case .closed: webViewDidClose(webView)
        }
    }

    /// Does nothing.
    public func webView(_ webView: WebView, didStartProvisionalNavigation navigation: Navigation) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didReceiveServerRedirectFor navigation: Navigation, to url: URL) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didCommit navigation: Navigation, response: NavigationResponse) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didFinish navigation: Navigation) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didFailProvisionalNavigation navigation: Navigation, withError error: NavigationError) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didFail navigation: Navigation, withError error: NavigationError) {}
    /// Does nothing.
    public func webViewWebContentProcessDidTerminate(_ webView: WebView, reason: WebProcessTerminationReason) {}
    /// Allows every navigation.
    public func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        .allow
    }
    /// `NavigationResponsePolicy.default(for:)`: shows what WebKit can show, downloads attachments and the rest.
    public func webView(_ webView: WebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        NavigationResponsePolicy.default(for: response)
    }
    /// Does nothing.
    public func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest) {}
    /// Answers as the view's configuration says (`WebViewConfiguration.unansweredDialogs`).
    public func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse {
        webView.configuration.unansweredDialogs
    }
    /// Does nothing.
    public func webView(_ webView: WebView, didAnswerScriptDialog dialog: ScriptDialog) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didBecomeDownload download: Download) {}
    /// Does nothing.
    public func webView(_ webView: WebView, resource event: ResourceEvent) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didLog message: ConsoleMessage) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didThrow error: PageError) {}
    /// Does nothing.
    public func webView(_ webView: WebView, didChange property: WebViewPropertyChange) {}
    /// Does nothing.
    public func webViewDidClose(_ webView: WebView) {}
}

/// A delegate that implements nothing: it answers every question with the
/// protocol's defaults. A view without a delegate, and a delegate proxy
/// without a forward delegate, ask it, so each default is written once.
@WebKitActor
package final class DefaultNavigationDelegate: NavigationDelegate {
    package static let shared = DefaultNavigationDelegate()
}

extension NavigationResponsePolicy {
    /// WebKit's own default: show what can be shown, download attachments and
    /// MIME types WebKit cannot show.
    public static func `default`(for response: NavigationResponse) -> NavigationResponsePolicy {
        response.canShowMIMEType && !response.isAttachment ? .allow : .download
    }
}
