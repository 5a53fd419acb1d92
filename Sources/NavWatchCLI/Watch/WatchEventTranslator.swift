import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchGuard
import NavWatchReports
import WebKitThread

/// Turns a view's events into the `WatchEvent` lines `navwatch URL` prints:
/// numbers navigations (`#1`, `#2`, ... in the order they were asked for or
/// started by the page), times each from its start, prints one line per
/// resource, and passes each URL the guard refused to `onBlocked` once.
///
/// Every navigation gets exactly one terminal line: `finished`, `failed` or
/// `terminated`. It is the view's delegate: it gets each event the moment
/// the view emits it, before the navigations' folds (`RunningFold`) do, so a
/// fold it reads is as it was before the event. Everything happens on the
/// WebKit thread, in event order.
@WebKitActor
final class WatchEventTranslator: NavigationDelegate {
    private let resources: Bool
    private let privateAddressGuard: PrivateAddressGuard?
    private let emit: (WatchEvent) -> Void
    private let onBlocked: (URL, BlockedRequest) -> Void
    /// The URLs already passed to `onBlocked`.
    private var blockedURLs: Set<URL> = []
    /// Where the guard's record stood when watching started.
    private let guardMark: GuardMark?
    private let clock = ContinuousClock()

    private var numbers: [UInt64: Int] = [:]
    private var startTimes: [UInt64: ContinuousClock.Instant] = [:]
    /// The fold of every navigation still running, and of the one asked for
    /// last also after it ended: the watcher's for those it asked for, the
    /// translator's own for those the page started.
    private var loads: [UInt64: RunningFold] = [:]
    /// The resources whose end (failure or finish) was printed: WebKit
    /// reports `finished` after `failed` too, and one line per resource is printed.
    private var endedResources: Set<UInt64> = []
    private var lastNumber = 0
    /// The navigation asked for last.
    private var current: Navigation?
    /// The view, for the URL of lines that belong to no navigation.
    private weak var view: WebView?

    init(view: WebView, resources: Bool, privateAddressGuard: PrivateAddressGuard?,
         emit: @escaping (WatchEvent) -> Void, onBlocked: @escaping (URL, BlockedRequest) -> Void) {
        self.view = view
        self.resources = resources
        self.privateAddressGuard = privateAddressGuard
        self.guardMark = privateAddressGuard?.mark
        self.emit = emit
        self.onBlocked = onBlocked
    }

    /// Numbers the navigation `fold` folds, asked for at `start`, and makes
    /// it the current one; returns its number. Call it before its events
    /// are handled.
    func begin(_ fold: RunningFold, at start: ContinuousClock.Instant) -> Int {
        if let previous = current, loads[previous.id]?.state.isEnded == true { loads[previous.id] = nil }
        let navigation = fold.state.navigation
        current = navigation
        lastNumber += 1
        numbers[navigation.id] = lastNumber
        startTimes[navigation.id] = start
        loads[navigation.id] = fold
        return lastNumber
    }

    func webView(_ webView: WebView, didReceive event: WebViewEvent) {
        if case .navigation(.didStartProvisionalNavigation(let navigation)) = event, loads[navigation.id] == nil {
            loads[navigation.id] = webView.fold(navigation)  // the page started it
        }
        switch event {
        case .navigation(let navigationEvent): handle(navigationEvent)
        case .resource(let resourceEvent):
            switch resourceEvent {
            case .finished(let id, _, _, _, _), .failed(let id, _, _):
                if endedResources.insert(id).inserted { handle(resourceEvent) }
            case .started, .redirected:
                handle(resourceEvent)
            }
        case .consoleMessage(let message):
            emit(WatchEvent(kind: .console, nav: message.navigation.map(number) ?? lastNumber,
                            url: message.url?.absoluteString ?? "", milliseconds: milliseconds(message.navigation),
                            level: message.level.rawValue, message: message.text, line: message.line))
        case .pageError(let error):
            emit(WatchEvent(kind: .pageError, nav: error.navigation.map(number) ?? lastNumber,
                            url: error.url?.absoluteString ?? "", milliseconds: milliseconds(error.navigation),
                            message: error.message, line: error.line, column: error.column))
        case .propertyChange, .closed: break
        }
    }

    private func number(_ navigation: Navigation) -> Int {
        if let number = numbers[navigation.id] { return number }
        lastNumber += 1
        numbers[navigation.id] = lastNumber
        return lastNumber
    }

    /// The time of the event being handled since `navigation` started: the
    /// reading its fold records too, so a `finished` line's time is the
    /// load's finish in `--runs`' summary to the tenth of a millisecond.
    private func milliseconds(_ navigation: Navigation?) -> Double {
        guard let navigation, let start = startTimes[navigation.id] else { return 0 }
        return ((view?.eventInstant ?? clock.now) - start).milliseconds
    }

    /// Forgets an ended navigation, unless it is the current one (whose
    /// requests `--resources` still prints).
    private func retire(_ navigation: Navigation) {
        if current?.id != navigation.id { loads[navigation.id] = nil }
    }

    private func handle(_ event: NavigationEvent) {
        switch event {
        case .didStartProvisionalNavigation(let navigation):
            if startTimes[navigation.id] == nil { startTimes[navigation.id] = view?.eventInstant ?? clock.now }
            emit(WatchEvent(kind: .started, nav: number(navigation), url: navigation.url.absoluteString,
                            milliseconds: milliseconds(navigation)))

        case .didReceiveServerRedirect(let navigation, let url):
            emit(WatchEvent(kind: .redirected, nav: number(navigation), url: url.absoluteString,
                            milliseconds: milliseconds(navigation)))

        case .didCommit(let navigation, let response):
            emit(WatchEvent(kind: .committed, nav: number(navigation), url: response.url.absoluteString,
                            milliseconds: milliseconds(navigation), status: response.httpStatus,
                            mime: response.mimeType))

        case .didFinish(let navigation):
            let state = loads[navigation.id]?.state
            let response = state?.response
            retire(navigation)
            emit(WatchEvent(kind: .finished, nav: number(navigation), url: (response?.url ?? navigation.url).absoluteString,
                            milliseconds: milliseconds(navigation), status: response?.httpStatus,
                            mime: response?.mimeType, title: state?.title))

        case .didFailProvisionalNavigation(let navigation, let error), .didFail(let navigation, let error):
            reportIfBlocked(error.failingURL ?? navigation.url)
            let provisional: Bool
            if case .didFailProvisionalNavigation = event { provisional = true } else { provisional = false }
            // A failure that follows the web process going away is the `terminated` line.
            let terminated = loads[navigation.id]?.state.webProcessTermination != nil && error.kind == .webProcessCrashed
            retire(navigation)
            emit(WatchEvent(kind: terminated ? .terminated : .failed, nav: number(navigation),
                            url: error.failingURL?.absoluteString ?? navigation.url.absoluteString,
                            milliseconds: milliseconds(navigation), provisional: provisional, error: error))

        case .webContentProcessDidTerminate(let reason):
            if loads.values.allSatisfy({ $0.state.isEnded || $0.state.stage == .requested }) {
                // No navigation fails of it (one not started yet is issued
                // again in a new process): report it against the last one.
                let error = NavigationError(kind: .webProcessCrashed, domain: NavigationError.navwatchDomain,
                                            code: NavigationError.NavwatchCode.webProcessTerminated.rawValue,
                                            message: "the web process terminated (\(reason))", failingURL: view?.url)
                emit(WatchEvent(kind: .terminated, nav: lastNumber, url: view?.url?.absoluteString ?? "",
                                milliseconds: 0, error: error))
            }  // otherwise the failure that follows becomes the `terminated` line

        case .sameDocumentNavigation(let change):
            emit(WatchEvent(kind: .sameDocument, nav: change.navigation.map(number) ?? lastNumber,
                            url: change.url.absoluteString, milliseconds: milliseconds(change.navigation),
                            sameDocumentKind: change.kind))

        case .newWindowRequest(let request):
            emit(WatchEvent(kind: .newWindow, nav: lastNumber, url: request.url?.absoluteString ?? "",
                            milliseconds: milliseconds(current)))

        case .scriptDialog(let dialog):
            emit(WatchEvent(kind: .dialog, nav: lastNumber, url: view?.url?.absoluteString ?? "",
                            milliseconds: milliseconds(current), message: dialog.message,
                            dialog: PageLoadReport.DialogInfo(dialog)))

        case .download(let download):
            emit(WatchEvent(kind: .download, nav: download.navigation.map(number) ?? lastNumber,
                            url: download.url.absoluteString, milliseconds: milliseconds(download.navigation),
                            status: download.response.httpStatus, mime: download.response.mimeType))
        }
    }

    /// Passes `url` to `onBlocked` if the guard refused it and it was not passed before.
    private func reportIfBlocked(_ url: URL) {
        guard let privateAddressGuard,
              case .blocked(let request) = privateAddressGuard.verdict(for: url, since: guardMark),
              blockedURLs.insert(url).inserted else { return }
        onBlocked(url, request)
    }

    private func handle(_ event: ResourceEvent) {
        switch event {
        case .finished(_, let url, _, _, _), .failed(_, let url, _): reportIfBlocked(url)
        case .started, .redirected: break
        }
        guard resources else { return }
        let milliseconds = milliseconds(current)
        switch event {
        case .started(_, let url, _, _, _):
            emit(WatchEvent(kind: .resourceStarted, nav: lastNumber, url: url.absoluteString, milliseconds: milliseconds))
        case .redirected:
            return
        case .finished(_, let url, let status, let mime, _):
            emit(WatchEvent(kind: .resourceFinished, nav: lastNumber, url: url.absoluteString,
                            milliseconds: milliseconds, status: status > 0 ? status : nil, mime: mime))
        case .failed(_, let url, let error):
            emit(WatchEvent(kind: .resourceFailed, nav: lastNumber, url: url.absoluteString,
                            milliseconds: milliseconds, error: error))
        }
    }
}

private extension NavigationResponse {
    /// The HTTP status; nil for a response without one (a file, `about:blank`).
    var httpStatus: Int? { statusCode > 0 ? statusCode : nil }
}
