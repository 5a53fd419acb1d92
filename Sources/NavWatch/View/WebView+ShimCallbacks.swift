import CNavShim
import Foundation
import WebKitThread

// What a view does with each callback of the shim: every one arrives on the
// WebKit thread, inside a WebKit signal handler, and its C data is converted
// before anything else happens.
extension WebView {
    func handle(_ event: ShimEvent, signalTime: UInt64) {
        ShimContext.trace("\(ObjectIdentifier(self).hashValue % 10000) \(event)")
        callbackDepth += 1
        let outerSignalTime = self.signalTime
        self.signalTime = signalTime
        defer {
            callbackDepth -= 1
            self.signalTime = outerSignalTime
        }
        switch event {
        case .fromPage(let page, let posted):
            view(showingPage: page).handle(posted, signalTime: signalTime)
        case .load(let signal):
            if case .uriChanged(let uri) = signal, let uri, !uri.isEmpty {
                url = URL(string: uri)
                emit(.propertyChange(.url(url)))
            }
            switch signal {
            case .started, .finished, .failed, .webProcessTerminated: stopAnswers += 1
            default: break  // a URI change is the UI process's; a commit or redirect may predate the stop
            }
            deliver(tracker.handle(signal))
            if case .webProcessTerminated = signal { webProcessTerminated() }
        case .title(let value):
            // Two sources say the same thing: the document script at `load`
            // (before the finish) and WebKit's own notification (after it).
            guard value != title else { return }
            title = value
            emit(.propertyChange(.title(value)))
        case .isLoading(let value):
            isLoading = value
            emit(.propertyChange(.isLoading(value)))
        case .estimatedProgress(let value):
            estimatedProgress = value
            emit(.propertyChange(.estimatedProgress(value)))
        case .resource(let resourceEvent):
            emit(.resource(resourceEvent))
        case .newWindow(let request):
            deliver([.newWindowRequest(request)])
        case .consoleMessage(let message):
            // The engine also logs each uncaught error and unhandled rejection
            // as a JavaScript error; they are reported once, as page errors.
            guard !(message.source == .javaScript && message.level == .error) else { return }
            // The engine logs the main resource's error statuses and failures
            // too, before the commit or after the failure: they are the
            // navigation's status or failure, not a document's messages.
            guard !(message.source == .network && message.url.map(tracker.mainResourceURLs.contains) == true) else { return }
            let attributed = ConsoleMessage(level: message.level, source: message.source, text: message.text,
                                            url: message.url, line: message.line, navigation: tracker.document)
            if consoleMessages.count < Self.retainedConsoleEntries { consoleMessages.append(attributed) }
            emit(.consoleMessage(attributed))
        case .pageError(let error):
            let attributed = PageError(kind: error.kind, message: error.message, url: error.url, line: error.line,
                                       column: error.column, stack: error.stack, navigation: tracker.document)
            if pageErrors.count < Self.retainedConsoleEntries { pageErrors.append(attributed) }
            emit(.pageError(attributed))
        case .repeatedConsoleCall, .unknownMessage:
            break
        }
    }

    func handle(_ policy: nw_policy) {
        let decision = PolicyDecision(policy.decision)
        let requestURL = parseURL(policy.uri.map { String(cString: $0) })
        switch policy.kind {
        case NW_POLICY_NEW_WINDOW_ACTION:
            // Let it reach `create` (on_view_create in view.c), which reports
            // it once and opens nothing: the other half of the new-window rule.
            decision.use()
        case NW_POLICY_NAVIGATION_ACTION:
            navigationActionsAsked += 1
            deliver(tracker.handle(.navigationAsked))
            let action = NavigationAction(
                url: requestURL, httpMethod: policy.method.map { String(cString: $0) },
                kind: NavigationAction.Kind(rawValue: Int(policy.navigation_type)) ?? .other,
                isRedirect: policy.is_redirect != 0, isUserGesture: policy.is_user_gesture != 0,
                targetFrameName: policy.frame_name.map { String(cString: $0) })
            let decider = self.decider
            let loadsAskedBefore = loadsAsked
            Task {
                var answer = await decider.webView(self, decidePolicyFor: action)
                // A load asked for since came after: WebKit would let this
                // navigation of the replaced document cancel it.
                if self.loadsAsked != loadsAskedBefore && !action.isRedirect { answer = .cancel }
                self.apply(answer, to: action, decision: decision)
            }
        default:
            guard let converted = policy.response?.pointee, policy.is_main_frame_main_resource != 0 else {
                return decision.use()  // subresources are not asked about
            }
            let response = NavigationResponse(converted, canShowMIMEType: policy.is_mime_type_supported != 0)
            let navigation = tracker.active?.navigation
            let decider = self.decider
            Task {
                let answer = await decider.webView(self, decidePolicyFor: response)
                self.apply(answer, to: response, navigation: navigation, decision: decision)
            }
        }
    }

    private func apply(_ policy: NavigationActionPolicy, to action: NavigationAction, decision: PolicyDecision) {
        navigationActionsAnswered += 1
        defer { for entry in Array(runningFolds.values) { entry.fold?.viewChanged() } }
        switch policy {
        case .allow:
            deliver(tracker.handle(.navigationAllowed(url: action.url)))
            decision.use()
        case .cancel, .download:
            navigationActionsRefused += 1
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
            // with "frame load interrupted", which ends the navigation. Only a
            // test waiting for a download (`waitForDownload`) lets it be written.
            deliver([.download(Download(navigation: navigation, url: response.url, response: response))])
            if isAwaitingDownload { decision.download() } else { decision.ignore() }
        }
    }

    func handle(_ dialog: nw_dialog, reply: inout nw_dialog_reply) {
        callbackDepth += 1
        defer { callbackDepth -= 1 }
        var request = ScriptDialog(kind: ScriptDialog.Kind(rawValue: Int(dialog.type)) ?? .alert,
                                   message: dialog.message.map { String(cString: $0) } ?? "",
                                   defaultText: dialog.default_text.map { String(cString: $0) })
        let answer = answer(request)
        switch answer {
        case .accept:
            reply.confirmed = 1
            reply.text = request.defaultText.map { strdup($0) } ?? nil
        case .acceptWithText(let text):
            reply.confirmed = 1
            reply.text = strdup(text)
        case .dismiss:
            reply.confirmed = 0
        }
        request.answer = answer
        deliver([.scriptDialog(request)])
    }
}

/// The user context the shim holds for one view. It points back weakly, so
/// the shim never keeps a view alive; the shim releases it in nw_view_destroy.
@WebKitActor
final class ShimContext {
    weak var view: WebView?

    /// `NAVWATCH_TRACE=1` prints every raw WebKit signal to standard error.
    private nonisolated static let tracing = ProcessInfo.processInfo.environment["NAVWATCH_TRACE"] != nil

    nonisolated static func trace(_ text: @autoclosure () -> String) {
        guard tracing else { return }
        FileHandle.standardError.write(Data("navwatch-trace \(Date().timeIntervalSince1970) \(text())\n".utf8))
    }

    // The C pointers are borrowed for the duration of the call and the call
    // runs on the WebKit thread, so handing them to isolated code is safe.
    nonisolated static let callbacks = nw_callbacks(
        event: { context, event in
            nonisolated(unsafe) let (context, event) = (context, event)
            WebKitActor.assumeIsolated {
                let converted = ShimEvent(event.pointee)
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?
                    .handle(converted, signalTime: event.pointee.signal_time_ns)
            }
        },
        policy: { context, policy in
            nonisolated(unsafe) let (context, policy) = (context, policy)
            WebKitActor.assumeIsolated {
                let view = Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view
                // A view being torn down has no delegate to ask: let WebKit go on.
                if let view { view.handle(policy.pointee) } else { nw_decision_use(policy.pointee.decision) }
            }
        },
        dialog: { context, dialog, reply in
            nonisolated(unsafe) let (context, dialog, reply) = (context, dialog, reply)
            // A view being torn down leaves the reply zeroed: the dialog is dismissed.
            WebKitActor.assumeIsolated {
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?.handle(dialog.pointee, reply: &reply.pointee)
            }
        },
        popup: { context, request in
            nonisolated(unsafe) let (context, request) = (context, request)
            return WebKitActor.assumeIsolated {
                guard case .newWindow(let window) = ShimEvent(request.pointee) else { return nil }
                return Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?.openPopup(for: window)
            }
        },
        download_destination: { context, id, uri, suggested in
            nonisolated(unsafe) let (context, uri, suggested) = (context, uri, suggested)
            return WebKitActor.assumeIsolated {
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?
                    .downloadDestination(id: id, url: String(cString: uri), suggestedFilename: String(cString: suggested))
                    .flatMap { strdup($0) }
            }
        },
        download_ended: { context, id, uri, destination, error in
            nonisolated(unsafe) let (context, uri, destination, error) = (context, uri, destination, error)
            WebKitActor.assumeIsolated {
                Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view?
                    .downloadEnded(id: id, url: String(cString: uri), path: destination.map { String(cString: $0) },
                                   error: error.map { String(cString: $0) })
            }
        },
        close_requested: { context in
            nonisolated(unsafe) let context = context
            WebKitActor.assumeIsolated {
                // Only a popup: WebKit also lets a window whose history has one entry
                // close itself, and a crawled page must not close the crawler's view.
                guard let view = Unmanaged<ShimContext>.fromOpaque(context).takeUnretainedValue().view,
                      view.popupRoot != nil else { return }
                // After the signal: WebKit is still emitting it on the view.
                Task { @WebKitActor in view.close() }
            }
        },
        release: { context in
            Unmanaged<ShimContext>.fromOpaque(context).release()
        })
}
