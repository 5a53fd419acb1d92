import CNavShim
import Foundation
import Synchronization
// Part of NavWatch's API: `WebKitActor`, the WebKit thread's global actor,
// for a user's own code that works with views.
@_exported import WebKitThread

/// An offscreen WebKitGTK web view whose navigations are reported to a
/// `NavigationDelegate`.
///
/// Isolated to `@WebKitActor`: use it from any task with `await`. Each view
/// has its own web process. Every navigation ends with exactly one terminal
/// event (finish, provisional failure or failure) within
/// `configuration.navigationTimeout`, whatever the page or server does; when
/// the finish is delivered, `title` is the finished document's title.
/// `close()` (or dropping the last reference) tears the view down on the
/// WebKit thread and releases every signal handler.
@WebKitActor
public final class WebView {
    /// How the view was set up; fixed for its life (`setUserAgent(_:)` and
    /// `setJavaScriptEnabled(_:)` change the live values, not this).
    public let configuration: WebViewConfiguration
    /// Receives every event of the view (`webView(_:didReceive:)`) and answers
    /// its questions (policies, dialogs). Held weakly, as in WebKit. Without
    /// one, every question gets the `NavigationDelegate` protocol's default.
    public weak var navigationDelegate: (any NavigationDelegate)?

    /// The page's title, nil when it has none. Set before the finish of the
    /// document it belongs to is delivered; a later change by a script
    /// follows as a `.title` property change.
    public internal(set) var title: String?
    /// The URL shown, including same-document changes.
    public internal(set) var url: URL?
    /// Whether WebKit is loading a page (its `is-loading` property); each
    /// change is also reported as a `.isLoading` property change.
    public internal(set) var isLoading = false
    /// 0.0 to 1.0.
    public internal(set) var estimatedProgress = 0.0
    /// The User-Agent sent with the next requests; nil is WebKit's own.
    public private(set) var userAgent: String?
    /// Whether pages run their own JavaScript. navwatch's own scripts and
    /// `evaluateJavaScript` run either way.
    public private(set) var javaScriptEnabled: Bool
    /// The console messages of the document shown now, in order: emptied when
    /// the next document commits. The first `retainedConsoleEntries` are kept;
    /// `view.rx.consoleMessages` and the delegate see every one.
    public internal(set) var consoleMessages: [ConsoleMessage] = []
    /// The uncaught errors and unhandled rejections of the document shown now,
    /// kept as `consoleMessages` are.
    public internal(set) var pageErrors: [PageError] = []
    /// How many console messages and page errors a view keeps for its document.
    public nonisolated static let retainedConsoleEntries = 1000
    /// The attribute `getByTestId(_:)` matches, as Playwright's
    /// `selectors.setTestIdAttribute`; read whenever a locator is used.
    public var testIdAttribute = "data-testid"
    /// How long a locator's actions and queries, `goto`, `reload`, `goBack`
    /// and `goForward` wait when a call gives no timeout of its own.
    public var defaultTimeout: Duration = .seconds(30)
    /// Answers the page's dialogs before the delegate (`onDialog(_:)`).
    var dialogHandler: (@WebKitActor (Dialog) -> Void)?
    /// Takes each window the page opens (`onPopup(_:)`).
    var popupHandler: (@WebKitActor (WebView) -> Void)?
    /// The `waitForPopup` calls waiting, by number: each gets the next window opened.
    var popupWaits: [Int: ActionWait<WebView>] = [:]
    var popupWaitsMade = 0
    /// The `waitForDownload` calls waiting, by number.
    var downloadWaits: [Int: DownloadWait] = [:]
    var downloadWaitsMade = 0
    /// The windows this view's pages opened, and theirs in turn, open until
    /// they close or this view does: they post to this view's content
    /// manager, which WebKit gives a popup from its opener.
    var popupFamily: [WebView] = []
    /// The view whose content manager this one's pages post to: the first
    /// opener of a popup; nil for any other view.
    weak var popupRoot: WebView?
    /// The navigation that has not ended yet, if any.
    public var activeNavigation: Navigation? { tracker.active?.navigation }
    /// How far WebKit has got with `activeNavigation` (for the package's tests).
    package var activeNavigationStage: PageLoadState.Stage? { tracker.active?.stage }
    /// Whether `close()` was called. A closed view loads nothing more: a
    /// load throws `WebViewError.closed`.
    public var isClosed: Bool { shim == nil }

    /// Objects other layers attach to the view, keyed by their type, that live
    /// as long as it does: NavWatchRx's `associatedObjects` (where every
    /// `DelegateProxyType` keeps its proxy) is stored here.
    package var attachments: [ObjectIdentifier: AnyObject] = [:]

    /// Records a trace of the view's steps, console and requests when started (`Tracing.start`).
    public var tracing: Tracing {
        if let startedTracing { return startedTracing }
        let tracing = Tracing(view: self)
        startedTracing = tracing
        return tracing
    }
    /// `tracing`, once asked for.
    private var startedTracing: Tracing?

    /// Runs `body` as a step of the trace being recorded, if any (`Tracing.step`).
    package func traced<T, Failure: Error>(_ title: @autoclosure () -> String, failure: (T) -> String? = { _ in nil },
                                           _ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard let startedTracing, startedTracing.isRecording else { return try await body() }
        return try await startedTracing.step(title(), failure: failure, body)
    }

    /// What answers the view's intercepted requests (NavWatchTesting's
    /// router), kept while the view is open: let go of by `close()`.
    package var interception: (any AnyObject & Sendable)?
    /// The shim's view; nil once closed.
    var shim: OpaquePointer?
    /// The view's web context, shared with the views of its popups.
    let webContext: OpaquePointer
    /// `webContext` when it was made for this view alone (`Storage.isolated`):
    /// let go of after the view (its popups keep it while they live).
    private var ownedContext: OpaquePointer?
    /// Whether the view has a web context of its own (`Storage.isolated`), shared only with its popups.
    package var ownsContext: Bool { ownedContext != nil }
    /// The scripts that set an origin's `localStorage` from
    /// `configuration.storageState`, by origin, until a document of it commits.
    var storageSeeds: [String: OpaquePointer] = [:]
    /// Whether the storage state's cookies are still being added: loads wait.
    var storageStateApplying = false
    var tracker = NavigationTracker(makeID: { WebView.navigationCounter.add(1, ordering: .relaxed).newValue })
    let timeouts = NavigationTimeouts()
    /// How to issue the last load asked for, kept until WebKit starts it: a
    /// web process that goes away first takes the request with it.
    var requestedLoad: (navigationID: UInt64, issue: @WebKitActor (OpaquePointer) -> Void)?
    /// How many load signals that can answer a stop (a start, finish or
    /// failure, a termination) WebKit has sent: a web process that answers a
    /// stop sends one.
    var stopAnswers = 0
    /// Navigation actions WebKit asked about (a subframe's too), those answered
    /// and those refused (cancelled or turned into downloads): whether an
    /// input started a navigation.
    var navigationActionsAsked = 0
    var navigationActionsAnswered = 0
    var navigationActionsRefused = 0
    /// The loads asked of this view (`load`, `loadHTML`, `reload`) so far: a
    /// navigation action asked about before the latest one came from the
    /// document that load replaces.
    var loadsAsked: UInt64 = 0
    /// The folds following this view's navigations (`RunningFold`), fed by
    /// `emit`: those of loads, of inputs' navigations and of the page's own.
    var runningFolds: [ObjectIdentifier: RunningFoldEntry] = [:]
    /// When the event the view is handing out was emitted, the instant its
    /// folds record it at: a delegate that times the event reads it, so that
    /// its time and the folds' are one reading. Nil between events.
    package private(set) var eventInstant: ContinuousClock.Instant?
    /// How many shim callbacks are on the stack: WebKit must not be asked to
    /// load from inside its own signal handlers.
    var callbackDepth = 0

    private nonisolated static let navigationCounter = Atomic<UInt64>(0)

    /// The shim time of the signal being handled; 0 outside a signal.
    var signalTime: UInt64 = 0

    /// Creates the view and its web process.
    ///
    /// - Throws: `WebKitUnavailableError` when there is no display and none can
    ///   be started, GTK cannot initialise, or the configuration asks for the
    ///   sandbox and bubblewrap cannot start.
    public convenience init(configuration: WebViewConfiguration = WebViewConfiguration()) throws {
        try self.init(configuration: configuration, sharingProcessWith: nil)
    }

    /// Creates a view that shares `other`'s web process (WebKit's related
    /// view), or a view with a process of its own when `other` is nil or
    /// closed. `configuration` must be `other`'s. A crash of the shared
    /// process ends the pages of every view in it.
    package init(configuration: WebViewConfiguration, sharingProcessWith other: WebView?) throws {
        ShimContext.trace("new view")
        try WebKitRuntime.checkAvailable()
        try configuration.check()
        // Held until destroy(_:), which runs once the shim's view exists.
        try ProcessPreferences.hold(configuration)
        self.configuration = configuration
        self.userAgent = configuration.userAgent
        self.javaScriptEnabled = configuration.javaScriptEnabled
        // A view sharing another's process shares its context (and storage).
        let webContext: (context: OpaquePointer, owned: Bool)
        if let other, other.shim != nil {
            webContext = (other.webContext, false)
        } else {
            do {
                webContext = try WebContextPool.context(for: configuration)
            } catch {
                ProcessPreferences.release(configuration)
                throw error
            }
        }
        self.webContext = webContext.context
        ownedContext = webContext.owned ? webContext.context : nil
        let context = ShimContext()
        // The shim keeps `context` retained until it calls `release` from nw_view_destroy.
        let retained = Unmanaged.passRetained(context).toOpaque()
        shim = configuration.withShimSettings { settings in
            nw_view_new(webContext.context, other?.shim, &settings, ShimContext.callbacks, retained)
        }
        context.view = self
        if other == nil, let state = configuration.storageState { start(from: state) }
    }

    isolated deinit {
        timeouts.cancelAll()
        if let shim { destroy(shim) }
        for entry in runningFolds.values { entry.fold?.viewEnded() }
    }

    /// Destroys the shim's view, then the scripts and context only it used.
    private func destroy(_ shim: OpaquePointer) {
        for script in storageSeeds.values { nw_view_remove_script(shim, script) }
        storageSeeds = [:]
        nw_view_destroy(shim)
        if let ownedContext { nw_context_free(ownedContext) }
        ownedContext = nil
        ProcessPreferences.release(configuration)
    }

    // MARK: Loading

    /// Starts loading `url`. A navigation still running on this view ends
    /// first, as `cancelled`. A navigation the page shown before starts by
    /// itself (a script setting `location`, a meta refresh) and that WebKit
    /// asked about before this call is refused, whatever the delegate says,
    /// so the old page cannot cancel this load.
    ///
    /// - Parameters:
    ///   - url: the page to load.
    ///   - timeout: overrides `configuration.navigationTimeout` for
    ///     this navigation.
    /// - Throws: `WebViewError.unsupportedURL` for URLs WebKit does not load,
    ///   `WebViewError.closed` after `close()`.
    @discardableResult
    public func load(_ url: URL, timeout: Duration? = nil) throws -> Navigation {
        try load(url, timeout: timeout, beforeIssuing: { _ in })
    }

    /// `load(_:timeout:)`, calling `beforeIssuing` with the navigation once
    /// the one it replaces has ended and before WebKit is asked for it.
    func load(_ url: URL, timeout: Duration?, beforeIssuing: (Navigation) -> Void) throws -> Navigation {
        guard let scheme = url.scheme?.lowercased(), Self.loadableSchemes.contains(scheme) else {
            throw WebViewError.unsupportedURL(url.absoluteString)
        }
        return try begin(url: url, origin: .load, timeout: timeout, beforeIssuing: beforeIssuing) {
            nw_view_load_uri($0, url.absoluteString)
        }
    }

    /// Loads `html` as a document whose relative URLs resolve against `baseURL`.
    @discardableResult
    public func loadHTML(_ html: String, baseURL: URL? = nil) throws -> Navigation {
        let base = baseURL ?? URL(string: "about:blank")!
        return try begin(url: base, origin: .load) { shim in
            nw_view_load_html(shim, html, baseURL?.absoluteString)
        }
    }

    /// Starts reloading the current page, calling `beforeIssuing` with the
    /// navigation first; nil when nothing was loaded yet.
    func reload(beforeIssuing: (Navigation) -> Void) throws -> Navigation? {
        guard let current = url ?? tracker.document?.url else {
            guard shim != nil else { throw WebViewError.closed }
            return nil
        }
        return try begin(url: current, origin: .reload, beforeIssuing: beforeIssuing) { nw_view_reload($0) }
    }

    /// Stops loading. The running navigation ends as a failure of kind `cancelled`.
    public func stop() {
        guard let shim else { return }
        if let active = tracker.active {
            end(navigationID: active.navigation.id, with: .navwatch(.cancelled, .stopped,
                "stopped by WebView.stop()", url: active.navigation.url))
        }
        nw_view_stop(shim)
    }

    /// Kills the web process, as a crash would. A navigation WebKit has
    /// started fails with kind `webProcessCrashed`; one it has not started yet
    /// is issued again in a new process, as is the next load.
    public func terminateWebProcess() {
        guard let shim else { return }
        nw_view_terminate_web_process(shim)
    }

    /// Tears the view down. A running navigation ends as `cancelled`, then
    /// the delegate receives `.closed`, and nothing after it. A
    /// `waitForPopup` or `waitForDownload` waiting throws `WebViewError.closed`;
    /// the windows its pages opened (`waitForPopup`, `onPopup`) close first:
    /// their pages report through this view. Calling it twice does nothing.
    public func close() {
        guard let shim else { return }
        for popup in popupFamily { popup.close() }
        popupFamily = []
        if let root = popupRoot { root.popupFamily.removeAll { $0 === self } }
        if let active = tracker.active {
            end(navigationID: active.navigation.id, with: .viewClosed(url: active.navigation.url))
        }
        timeouts.cancelAll()
        self.shim = nil
        destroy(shim)
        for wait in popupWaits.values { wait.abandon() }
        for wait in downloadWaits.values { wait.ended.abandon() }
        interception = nil
        emit(.closed)
    }

    // MARK: Settings

    /// Changes the User-Agent for the next requests.
    public func setUserAgent(_ userAgent: String?) {
        guard let shim, userAgent != self.userAgent else { return }
        nw_view_set_user_agent(shim, userAgent)
        self.userAgent = userAgent
        emit(.propertyChange(.userAgent(userAgent)))
    }

    /// Turns the pages' own JavaScript on or off for the next loads.
    public func setJavaScriptEnabled(_ enabled: Bool) {
        guard let shim, enabled != javaScriptEnabled else { return }
        nw_view_set_javascript_markup_enabled(shim, enabled ? 1 : 0)
        javaScriptEnabled = enabled
        emit(.propertyChange(.javaScriptEnabled(enabled)))
    }

    // MARK: Navigations

    /// The schemes `load(_:timeout:)` accepts.
    public nonisolated static let loadableSchemes: Set<String> = ["http", "https", "file", "about", "data"]

    private func begin(url: URL, origin: Navigation.Origin, timeout: Duration? = nil,
                       beforeIssuing: (Navigation) -> Void = { _ in },
                       issue: @escaping @WebKitActor (OpaquePointer) -> Void) throws -> Navigation {
        guard let shim else { throw WebViewError.closed }
        let (navigation, ended) = tracker.request(url: url, origin: origin)
        loadsAsked += 1
        deliver(ended)
        beforeIssuing(navigation)
        startTimeout(for: navigation, after: timeout ?? configuration.navigationTimeout)
        requestedLoad = (navigation.id, issue)
        if storageStateApplying {
            // Issued once the storage state's cookies are in (`start(from:)`).
        } else if callbackDepth > 0 {
            // Loading from inside a WebKit signal handler interleaves two load
            // cycles; issue it once the handler has returned.
            Task { [weak self] in
                guard let self, let shim = self.shim, self.tracker.active?.navigation.id == navigation.id else { return }
                issue(shim)
            }
        } else {
            issue(shim)
        }
        return navigation
    }

    func end(navigationID: UInt64, with error: NavigationError) {
        deliver(tracker.fail(navigationID: navigationID, with: error))
    }

    /// Emits navigation events in order, keeping each navigation's deadline:
    /// a navigation the page started gets one, an ended one loses it.
    func deliver(_ events: [NavigationEvent]) {
        for event in events {
            if event.isTerminal, let id = event.navigation?.id {
                timeouts.cancel(id)
            }
            if case .didStartProvisionalNavigation(let navigation) = event, !timeouts.has(navigation) {
                startTimeout(for: navigation, after: configuration.navigationTimeout)  // the page started it
            }
            if case .didCommit(_, let response) = event {
                consoleMessages = []
                pageErrors = []
                if !storageSeeds.isEmpty { seedCommitted(at: response.url) }
            }
            if signalTime != 0, let probe = SignalProbe.onSignal { probe(event, signalTime) }
            emit(.navigation(event))
        }
    }

    /// The one way out of the view: hands `event` to the trace being
    /// recorded (`tracing`), the delegate, then the folds of its navigations
    /// (`RunningFold`), which record it at `eventInstant`.
    func emit(_ event: WebViewEvent) {
        let outer = eventInstant
        let now = ContinuousClock.now
        eventInstant = now
        defer { eventInstant = outer }
        startedTracing?.receive(event)
        navigationDelegate?.webView(self, didReceive: event)
        for entry in Array(runningFolds.values) { entry.fold?.receive(event, at: now) }
    }

    /// The delegate that answers questions: the view's, or the protocol's defaults.
    var decider: any NavigationDelegate {
        navigationDelegate ?? DefaultNavigationDelegate.shared
    }
}
