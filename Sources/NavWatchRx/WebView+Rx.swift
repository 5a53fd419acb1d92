import Foundation
import NavWatch
import WebKitThread

extension WebView: ReactiveCompatible {}

/// Typed observables of a `WebView`, from its `NavigationDelegateProxy`.
///
/// Every member obtains a new subscription at the moment it is read, on the
/// WebKit thread, so `let finished = view.rx.didFinish; try view.load(url)`
/// never misses the finish. Events are produced on the WebKit thread;
/// iterate them from any task. See `Observable` for buffering, ordering and
/// cancellation. Observables never fail (failures are values) and end when
/// the view closes or is deinitialised.
@WebKitActor
extension Reactive where Base: WebView {
    /// The view's delegate proxy (created and installed on first use).
    public var delegate: NavigationDelegateProxy {
        NavigationDelegateProxy.proxy(for: base)
    }

    // MARK: Events: no value on subscription, every later event

    /// Every event of the view, in order: navigations, resources, property
    /// changes, and `.closed` last when the view is closed (a view that is
    /// deinitialised without `close()` just ends the stream).
    public var events: Observable<WebViewEvent> {
        delegate.methodInvoked
    }

    /// Every navigation event, in the order WebKit produced them.
    public var navigationEvents: Observable<NavigationEvent> {
        delegate.methodInvoked { $0.navigationEvent }
    }

    /// Each navigation when it starts, before any response: the first event of
    /// every navigation. Never fails; ends when the view closes.
    public var didStartProvisionalNavigation: Observable<Navigation> {
        delegate.methodInvoked {
            if case .navigation(.didStartProvisionalNavigation(let navigation)) = $0 { return navigation }
            return nil
        }
    }

    /// A navigation and the URL the server redirected it to, once per hop,
    /// before the commit. Never fails; ends when the view closes.
    public var didReceiveServerRedirect: Observable<(Navigation, URL)> {
        delegate.methodInvoked {
            if case .navigation(.didReceiveServerRedirect(let navigation, let url)) = $0 { return (navigation, url) }
            return nil
        }
    }

    /// A navigation and its main response, when the response arrived and the
    /// new document replaced the old one: at most once per navigation, before
    /// its finish or failure. Never fails; ends when the view closes.
    public var didCommit: Observable<(Navigation, NavigationResponse)> {
        delegate.methodInvoked {
            if case .navigation(.didCommit(let navigation, let response)) = $0 { return (navigation, response) }
            return nil
        }
    }

    /// Each navigation that finished (the page's `load` event fired): its
    /// terminal event, so nothing about it follows. When it is produced,
    /// `view.title` is the finished document's title. Never fails; ends when
    /// the view closes.
    public var didFinish: Observable<Navigation> {
        delegate.methodInvoked {
            if case .navigation(.didFinish(let navigation)) = $0 { return navigation }
            return nil
        }
    }

    /// Each navigation that failed before it committed, and why: its terminal
    /// event, so nothing about it follows. A failure is a value here; the
    /// observable itself never fails, and ends when the view closes.
    public var didFailProvisionalNavigation: Observable<(Navigation, NavigationError)> {
        delegate.methodInvoked {
            if case .navigation(.didFailProvisionalNavigation(let navigation, let error)) = $0 { return (navigation, error) }
            return nil
        }
    }

    /// Each navigation that failed after it committed, and why: its terminal
    /// event, so nothing about it follows. A failure is a value here; the
    /// observable itself never fails, and ends when the view closes.
    public var didFail: Observable<(Navigation, NavigationError)> {
        delegate.methodInvoked {
            if case .navigation(.didFail(let navigation, let error)) = $0 { return (navigation, error) }
            return nil
        }
    }

    /// Why the web process went away, each time it does. A navigation in flight
    /// then fails with kind `webProcessCrashed`; the next load starts a new
    /// process. Never fails; ends when the view closes.
    public var didTerminate: Observable<WebProcessTerminationReason> {
        delegate.methodInvoked {
            if case .navigation(.webContentProcessDidTerminate(let reason)) = $0 { return reason }
            return nil
        }
    }

    /// Each URL change inside the current document (`history.pushState`,
    /// `replaceState`, a fragment change), which loads nothing. Never fails;
    /// ends when the view closes.
    public var sameDocumentNavigation: Observable<SameDocumentNavigation> {
        delegate.methodInvoked {
            if case .navigation(.sameDocumentNavigation(let navigation)) = $0 { return navigation }
            return nil
        }
    }

    /// Each request of the page for a new window; none is opened. Never fails;
    /// ends when the view closes.
    public var newWindowRequest: Observable<NewWindowRequest> {
        delegate.methodInvoked {
            if case .navigation(.newWindowRequest(let request)) = $0 { return request }
            return nil
        }
    }

    /// Script dialogs, after they were answered.
    public var scriptDialog: Observable<ScriptDialog> {
        delegate.methodInvoked {
            if case .navigation(.scriptDialog(let dialog)) = $0 { return dialog }
            return nil
        }
    }

    /// Each main response that became a download (nothing is written to disk);
    /// its navigation then fails provisionally with kind `policy`. Never fails;
    /// ends when the view closes.
    public var download: Observable<Download> {
        delegate.methodInvoked {
            if case .navigation(.download(let download)) = $0 { return download }
            return nil
        }
    }

    /// Subresource (and main resource) events.
    public var resourceEvents: Observable<ResourceEvent> {
        delegate.methodInvoked {
            if case .resource(let event) = $0 { return event }
            return nil
        }
    }

    /// The page's console messages, in order with the navigation events:
    /// each one after the commit of the document it came from.
    public var consoleMessages: Observable<ConsoleMessage> {
        delegate.methodInvoked {
            if case .consoleMessage(let message) = $0 { return message }
            return nil
        }
    }

    /// The page's uncaught errors and unhandled rejections, in order with the
    /// navigation events.
    public var pageErrors: Observable<PageError> {
        delegate.methodInvoked {
            if case .pageError(let error) = $0 { return error }
            return nil
        }
    }

    /// Navigation actions as they are decided, for observation only: the
    /// forward delegate (or the default, allow) answers them.
    public var decidePolicyNavigationAction: Observable<NavigationAction> {
        delegate.actionPolicies.subscribe()
    }

    /// Main responses as they are decided, for observation only.
    public var decidePolicyNavigationResponse: Observable<NavigationResponse> {
        delegate.responsePolicies.subscribe()
    }

    // MARK: Properties: the current value on subscription, then every change (repeats skipped)

    /// The page's title (nil when it has none): the current value on
    /// subscription, then every change, repeats skipped. Never fails; ends when
    /// the view closes.
    public var title: Observable<String?> { delegate.title.subscribe() }
    /// The URL shown, same-document changes included: the current value on
    /// subscription, then every change, repeats skipped. Never fails; ends when
    /// the view closes.
    public var url: Observable<URL?> { delegate.url.subscribe() }
    /// Whether a load is in progress: the current value on subscription, then
    /// every change, repeats skipped. Never fails; ends when the view closes.
    public var isLoading: Observable<Bool> { delegate.isLoading.subscribe() }
    /// How far the load has got, from 0.0 to 1.0: the current value on
    /// subscription, then every change, repeats skipped. Never fails; ends when
    /// the view closes.
    public var estimatedProgress: Observable<Double> { delegate.estimatedProgress.subscribe() }
}
