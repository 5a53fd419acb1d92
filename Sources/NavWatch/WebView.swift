import CNavShim
import Foundation
import Synchronization
import WebKitThread

/// An offscreen WebKitGTK web view whose navigations are reported to a
/// `NavigationDelegate`.
///
/// Isolated to `@WebKitActor`: use it from any task with `await`. Each view
/// has its own web process. Every navigation ends with exactly one terminal
/// delegate call (finish, provisional failure or failure) within
/// `configuration.navigationTimeout`, whatever the page or server does.
/// `close()` (or dropping the last reference) tears the view down on the
/// WebKit thread and releases every signal handler.
@WebKitActor
public final class WebView {
    public let configuration: WebViewConfiguration
    /// Receives navigation events. Held weakly, as in WebKit.
    public weak var navigationDelegate: (any NavigationDelegate)?

    /// The page's title, nil when it has none.
    public private(set) var title: String?
    /// The URL shown, including same-document changes.
    public private(set) var url: URL?
    public private(set) var isLoading = false
    /// 0.0 to 1.0.
    public private(set) var estimatedProgress = 0.0
    /// The User-Agent sent with the next requests; nil is WebKit's own.
    public private(set) var userAgent: String?
    /// Whether pages run JavaScript.
    public private(set) var javaScriptEnabled: Bool
    /// The navigation that has not ended yet, if any.
    public var activeNavigation: Navigation? { tracker.active?.navigation }
    public var isClosed: Bool { shim == nil }

    /// Objects other layers attach to the view and that live as long as it
    /// does (the delegate proxy keeps itself here), keyed by their type.
    public var associatedObjects: [ObjectIdentifier: AnyObject] = [:]

    private var shim: OpaquePointer?
    private var tracker = NavigationTracker(makeID: { WebView.navigationCounter.add(1, ordering: .relaxed).newValue })
    private var timeouts: [UInt64: Task<Void, Never>] = [:]
    /// How many shim callbacks are on the stack: WebKit must not be asked to
    /// load from inside its own signal handlers.
    private var callbackDepth = 0
    private var stalledCycleCheck: Task<Void, Never>?

    /// `NAVWATCH_TRACE=1` prints every raw WebKit signal to standard error.
    private nonisolated static let tracing = ProcessInfo.processInfo.environment["NAVWATCH_TRACE"] != nil

    private nonisolated static func trace(_ text: String) {
        FileHandle.standardError.write(Data("navwatch-trace \(Date().timeIntervalSince1970) \(text)\n".utf8))
    }

    private nonisolated static let navigationCounter = Atomic<UInt64>(0)

    /// For the benchmark: called on the WebKit thread with each navigation
    /// event, just before the delegate gets it, and the `nw_monotonic_ns()`
    /// time its WebKit signal reached the shim. Events navwatch makes itself
    /// (timeouts, cancellations) are not passed.
    package static var signalProbe: ((NavigationEvent, UInt64) -> Void)?
    /// The shim time of the signal being handled; 0 outside a signal.
    private var signalTime: UInt64 = 0

    /// Creates the view and its web process.
    ///
    /// - Throws: `WebKitUnavailableError` when there is no display and none can
    ///   be started, or GTK cannot initialise.
    public init(configuration: WebViewConfiguration = WebViewConfiguration()) throws {
        if Self.tracing { Self.trace("new view") }
        try WebKitRuntime.checkAvailable()
        self.configuration = configuration
        self.userAgent = configuration.userAgent
        self.javaScriptEnabled = configuration.javaScriptEnabled
        let box = ShimContext()
        var settings = nw_settings()
        settings.javascript_enabled = configuration.javaScriptEnabled ? 1 : 0
        settings.images_enabled = configuration.imagesEnabled ? 1 : 0
        settings.width = Int32(configuration.viewportWidth)
        settings.height = Int32(configuration.viewportHeight)
        // The shim keeps `box` retained until it calls `release` from nw_view_destroy.
        let context = Unmanaged.passRetained(box).toOpaque()
        shim = (configuration.userAgent ?? "").withCString { agent in
            settings.user_agent = configuration.userAgent == nil ? nil : agent
            return nw_view_new(WebContextPool.context(for: configuration), &settings, ShimContext.callbacks, context)
        }
        box.view = self
    }

    isolated deinit {
        for task in timeouts.values { task.cancel() }
        stalledCycleCheck?.cancel()
        if let shim { nw_view_destroy(shim) }
    }

    // MARK: Loading

    /// Starts loading `url`. A navigation still running on this view ends
    /// first, as `cancelled`.
    ///
    /// - Parameter timeout: overrides `configuration.navigationTimeout` for
    ///   this navigation.
    /// - Throws: `WebViewError.unsupportedURL` for URLs WebKit does not load,
    ///   `WebViewError.closed` after `close()`.
    @discardableResult
    public func load(_ url: URL, timeout: Duration? = nil) throws -> Navigation {
        guard let scheme = url.scheme?.lowercased(), Self.loadableSchemes.contains(scheme) else {
            throw WebViewError.unsupportedURL(url.absoluteString)
        }
        return try begin(url: url, origin: .load, timeout: timeout) { nw_view_load_uri($0, url.absoluteString) }
    }

    /// Loads `html` as a document whose relative URLs resolve against `baseURL`.
    @discardableResult
    public func loadHTML(_ html: String, baseURL: URL? = nil) throws -> Navigation {
        let base = baseURL ?? URL(string: "about:blank")!
        return try begin(url: base, origin: .load) { shim in
            nw_view_load_html(shim, html, baseURL?.absoluteString)
        }
    }

    /// Reloads the current page. Returns nil when nothing was loaded yet.
    @discardableResult
    public func reload() throws -> Navigation? {
        guard let current = url ?? tracker.document?.url else {
            guard shim != nil else { throw WebViewError.closed }
            return nil
        }
        return try begin(url: current, origin: .reload) { nw_view_reload($0) }
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

    /// Kills the web process, as a crash would. A running navigation fails
    /// with kind `webProcessCrashed`; the next load starts a new process.
    public func terminateWebProcess() {
        guard let shim else { return }
        nw_view_terminate_web_process(shim)
    }

    /// Tears the view down. A running navigation ends as `cancelled`, the
    /// delegate is told `webViewDidClose`, and no delegate call follows.
    /// Calling it twice does nothing.
    public func close() {
        guard let shim else { return }
        if let active = tracker.active {
            end(navigationID: active.navigation.id, with: .navwatch(.cancelled, .viewClosed,
                "the web view was closed", url: active.navigation.url))
        }
        for task in timeouts.values { task.cancel() }
        timeouts.removeAll()
        stalledCycleCheck?.cancel()
        self.shim = nil
        nw_view_destroy(shim)
        navigationDelegate?.webViewDidClose(self)
    }

    // MARK: Settings

    /// Changes the User-Agent for the next requests.
    public func setUserAgent(_ userAgent: String?) {
        guard let shim, userAgent != self.userAgent else { return }
        nw_view_set_user_agent(shim, userAgent)
        self.userAgent = userAgent
        navigationDelegate?.webView(self, didChange: .userAgent(userAgent))
    }

    /// Turns the pages' JavaScript on or off for the next loads.
    public func setJavaScriptEnabled(_ enabled: Bool) {
        guard let shim, enabled != javaScriptEnabled else { return }
        nw_view_set_javascript_enabled(shim, enabled ? 1 : 0)
        javaScriptEnabled = enabled
        navigationDelegate?.webView(self, didChange: .javaScriptEnabled(enabled))
    }

    // MARK: JavaScript

    /// Evaluates `script` in the page's main frame and returns its value.
    ///
    /// The value goes through `JSON.stringify`: DOM nodes, functions and
    /// cyclic objects throw `unserializableResult`. Cancelling the awaiting
    /// task cancels the evaluation.
    public func evaluateJavaScript(_ script: String) async throws(JavaScriptError) -> JavaScriptValue {
        let json = try await evaluateForJSON(script)
        guard let json else { return .undefined }
        do {
            return try JavaScriptValue(json: json)
        } catch {
            throw .unserializableResult("\(error)")
        }
    }

    /// Evaluates `script` and decodes its `JSON.stringify`-ed value as `T`.
    public func evaluateJavaScript<T: Decodable>(_ script: String, as type: T.Type) async throws(JavaScriptError) -> T {
        guard let json = try await evaluateForJSON(script) else {
            throw .decodingFailed(path: "(root)", message: "the script returned undefined")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            throw .decodingFailed(path: error.codingPathDescription, message: error.failureDescription)
        } catch {
            throw .decodingFailed(path: "(root)", message: "\(error)")
        }
    }

    private func evaluateForJSON(_ script: String) async throws(JavaScriptError) -> String? {
        guard let shim else { throw .viewClosed }
        let evaluation = ScriptEvaluation()
        let outcome: Result<String?, JavaScriptError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                evaluation.start(on: shim, script: script, continuation: continuation)
            }
        } onCancel: {
            Task { @WebKitActor in evaluation.cancel() }
        }
        if case .failure(.cancelled) = outcome, self.shim == nil { throw .viewClosed }
        return try outcome.get()
    }

    // MARK: Navigation bookkeeping

    private static let loadableSchemes: Set<String> = ["http", "https", "file", "about", "data"]

    private func begin(url: URL, origin: Navigation.Origin, timeout: Duration? = nil,
                       issue: @escaping @WebKitActor (OpaquePointer) -> Void) throws -> Navigation {
        guard let shim else { throw WebViewError.closed }
        let (navigation, ended) = tracker.request(url: url, origin: origin)
        deliver(ended)
        startTimeout(for: navigation, after: timeout ?? configuration.navigationTimeout)
        if callbackDepth > 0 {
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

    private func startTimeout(for navigation: Navigation, after timeout: Duration) {
        timeouts[navigation.id] = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            self?.navigationTimedOut(navigation, after: timeout)
        }
    }

    private func navigationTimedOut(_ navigation: Navigation, after timeout: Duration) {
        guard let shim, tracker.active?.navigation.id == navigation.id else { return }
        end(navigationID: navigation.id, with: .navwatch(.timeout, .timeout,
            "the navigation did not finish within \(timeout.seconds) s", url: navigation.url))
        nw_view_stop(shim)
        // A web process that does not answer a stop is hung: after a grace
        // second, if no new load cycle has begun, replace the process.
        stalledCycleCheck?.cancel()
        stalledCycleCheck = Task { [weak self] in
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            guard let self, let shim = self.shim, self.isLoading else { return }
            if self.tracker.active == nil || self.tracker.active?.stage == .requested {
                nw_view_terminate_web_process(shim)
            }
        }
    }

    private func end(navigationID: UInt64, with error: NavigationError) {
        deliver(tracker.fail(navigationID: navigationID, with: error))
    }

    /// Sends events to the delegate in order and retires finished navigations.
    private func deliver(_ events: [NavigationEvent]) {
        for event in events {
            if event.isTerminal, let id = event.navigation?.id {
                timeouts.removeValue(forKey: id)?.cancel()
            }
            if case .didStartProvisionalNavigation(let navigation) = event, timeouts[navigation.id] == nil {
                startTimeout(for: navigation, after: configuration.navigationTimeout)  // the page started it
            }
            if signalTime != 0, let probe = Self.signalProbe { probe(event, signalTime) }
            navigationDelegate?.dispatch(event, from: self)
        }
    }

    // MARK: Shim callbacks (on the WebKit thread)

    fileprivate func handle(_ event: ShimEvent, signalTime: UInt64) {
        if Self.tracing { Self.trace("\(ObjectIdentifier(self).hashValue % 10000) \(event)") }
        callbackDepth += 1
        let outerSignalTime = self.signalTime
        self.signalTime = signalTime
        defer {
            callbackDepth -= 1
            self.signalTime = outerSignalTime
        }
        switch event {
        case .load(let signal):
            if case .uriChanged(let uri) = signal, let uri, !uri.isEmpty {
                url = URL(string: uri)
                navigationDelegate?.webView(self, didChange: .url(url))
            }
            deliver(tracker.handle(signal))
        case .property(let change):
            switch change {
            case .title(let value): title = value
            case .isLoading(let value): isLoading = value
            case .estimatedProgress(let value): estimatedProgress = value
            case .url(let value): url = value
            case .userAgent, .javaScriptEnabled: break  // only the setters above report these
            }
            navigationDelegate?.webView(self, didChange: change)
        case .resource(let resourceEvent):
            navigationDelegate?.webView(self, resource: resourceEvent)
        case .newWindow(let request):
            navigationDelegate?.webView(self, didRequestNewWindow: request)
        case .closeRequested:
            break  // window.close() from the page: the caller owns the view's life
        }
    }

    fileprivate func handle(_ policy: nw_policy) {
        let decision = PolicyDecision(policy.decision)
        let requestURL = parseURL(policy.uri.map { String(cString: $0) })
        switch policy.kind {
        case NW_POLICY_NEW_WINDOW_ACTION:
            // Let it reach `create`, which reports it once and opens nothing.
            decision.use()
        case NW_POLICY_NAVIGATION_ACTION:
            let action = NavigationAction(
                url: requestURL, httpMethod: policy.method.map { String(cString: $0) },
                kind: NavigationAction.Kind(rawValue: Int(policy.navigation_type)) ?? .other,
                isRedirect: policy.is_redirect != 0, isUserGesture: policy.is_user_gesture != 0,
                targetFrameName: policy.frame_name.map { String(cString: $0) })
            guard let delegate = navigationDelegate else {
                apply(.allow, to: action, decision: decision)
                return
            }
            Task {
                let answer = await delegate.webView(self, decidePolicyFor: action)
                self.apply(answer, to: action, decision: decision)
            }
        default:
            guard let converted = policy.response?.pointee else { return decision.use() }
            let response = NavigationResponse(converted, canShowMIMEType: policy.is_mime_type_supported != 0)
            guard policy.is_main_frame_main_resource != 0 else { return decision.use() }
            let navigation = tracker.active?.navigation
            guard let delegate = navigationDelegate else {
                apply(.default(for: response), to: response, navigation: navigation, decision: decision)
                return
            }
            Task {
                let answer = await delegate.webView(self, decidePolicyFor: response)
                self.apply(answer, to: response, navigation: navigation, decision: decision)
            }
        }
    }

    private func apply(_ policy: NavigationActionPolicy, to action: NavigationAction, decision: PolicyDecision) {
        switch policy {
        case .allow:
            deliver(tracker.handle(.navigationAllowed(url: action.url)))
            decision.use()
        case .cancel, .download:
            decision.ignore()
            guard let active = tracker.active, active.stage == .requested,
                  active.navigation.url.absoluteString == action.url.absoluteString else { return }
            let message = policy == .cancel
                ? "cancelled by the navigation delegate"
                : "turned into a download by the navigation delegate"
            end(navigationID: active.navigation.id, with: .navwatch(.policy, .cancelledByDelegate, message, url: action.url))
        }
    }

    private func apply(_ policy: NavigationResponsePolicy, to response: NavigationResponse, navigation: Navigation?,
                       decision: PolicyDecision) {
        switch policy {
        case .allow:
            decision.use()
        case .cancel:
            decision.ignore()
        case .download:
            // Ignoring keeps the body off the disk; WebKit then fails the load
            // with "frame load interrupted", which ends the navigation.
            navigationDelegate?.webView(self, didBecomeDownload: Download(navigation: navigation, url: response.url,
                                                                          response: response))
            decision.ignore()
        }
    }

    fileprivate func handle(_ dialog: nw_dialog, reply: inout nw_dialog_reply) {
        let request = ScriptDialog(kind: ScriptDialog.Kind(rawValue: Int(dialog.type)) ?? .alert,
                                   message: dialog.message.map { String(cString: $0) } ?? "",
                                   defaultText: dialog.default_text.map { String(cString: $0) })
        let answer = navigationDelegate?.webView(self, runScriptDialog: request) ?? .accept
        switch answer {
        case .accept:
            reply.confirmed = 1
        case .acceptWithText(let text):
            reply.confirmed = 1
            reply.text = strdup(text)
        case .dismiss:
            reply.confirmed = 0
        }
    }
}

/// The user context the shim holds for one view. It points back weakly, so
/// the shim never keeps a view alive; the shim releases it in nw_view_destroy.
@WebKitActor
private final class ShimContext {
    weak var view: WebView?

    // The C pointers are borrowed for the duration of the call and the call
    // runs on the WebKit thread, so handing them to isolated code is safe.
    nonisolated static let callbacks = nw_callbacks(
        event: { context, event in
            nonisolated(unsafe) let (context, event) = (context!, event!)
            WebKitActor.assumeIsolated {
                let converted = ShimEvent(event.pointee)
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?
                    .handle(converted, signalTime: event.pointee.signal_time_ns)
            }
        },
        policy: { context, policy in
            nonisolated(unsafe) let (context, policy) = (context!, policy!)
            WebKitActor.assumeIsolated {
                let view = Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view
                if let view { view.handle(policy.pointee) } else { nw_decision_use(policy.pointee.decision) }
            }
        },
        dialog: { context, dialog, reply in
            nonisolated(unsafe) let (context, dialog, reply) = (context!, dialog!, reply!)
            WebKitActor.assumeIsolated {
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?.handle(dialog.pointee, reply: &reply.pointee)
            }
        },
        release: { context in
            Unmanaged<ShimContext>.fromOpaque(context!).release()
        })
}

extension NavigationDelegate {
    /// Calls the delegate method that corresponds to `event`.
    func dispatch(_ event: NavigationEvent, from view: WebView) {
        switch event {
        case .didStartProvisionalNavigation(let n): webView(view, didStartProvisionalNavigation: n)
        case .didReceiveServerRedirect(let n, let url): webView(view, didReceiveServerRedirectFor: n, to: url)
        case .didCommit(let n, let response): webView(view, didCommit: n, response: response)
        case .didFinish(let n): webView(view, didFinish: n)
        case .didFailProvisionalNavigation(let n, let error): webView(view, didFailProvisionalNavigation: n, withError: error)
        case .didFail(let n, let error): webView(view, didFail: n, withError: error)
        case .webContentProcessDidTerminate(let reason): webViewWebContentProcessDidTerminate(view, reason: reason)
        case .sameDocumentNavigation(let s): webView(view, didSameDocumentNavigation: s)
        case .newWindowRequest(let r): webView(view, didRequestNewWindow: r)
        case .download(let d): webView(view, didBecomeDownload: d)
        case .scriptDialog: break  // answered through runScriptDialog
        }
    }
}

extension DecodingError {
    var codingPathDescription: String {
        let path: [CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
            if case .keyNotFound(let key, _) = self { return render(path + [key]) }
        @unknown default:
            path = []
        }
        return render(path)
    }

    var failureDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(self)"
        }
    }

    private func render(_ path: [CodingKey]) -> String {
        guard !path.isEmpty else { return "(root)" }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
