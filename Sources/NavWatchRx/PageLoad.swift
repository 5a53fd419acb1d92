import AsyncAlgorithms
import Foundation
import NavWatch
import WebKitThread

/// How one page load ended.
public enum PageLoadOutcome: Sendable, Hashable {
    /// The page finished; `response` is its main response (nil when the
    /// navigation never received one, as for `about:blank`).
    case finished(Navigation, response: NavigationResponse?)
    /// The navigation failed; `response` is set when it had committed.
    case failed(Navigation, NavigationError, response: NavigationResponse?)

    public var navigation: Navigation {
        switch self {
        case .finished(let navigation, _), .failed(let navigation, _, _): return navigation
        }
    }
}

@WebKitActor
extension Reactive where Base: WebView {
    /// Loads `url` and returns how that navigation ended.
    ///
    /// Folds this navigation's events from `navigationEvents` (subscribed
    /// before the load starts, so nothing is missed) with `reductions` until
    /// its terminal event. Cancelling the awaiting task stops the load and
    /// returns its `cancelled` failure. Failures are values: it throws only
    /// when the load cannot start (see `WebView.load`).
    public func pageLoad(_ url: URL, timeout: Duration? = nil) async throws -> PageLoadOutcome {
        let events = navigationEvents
        let view = base
        let navigation = try view.load(url, timeout: timeout)
        let outcome = await withTaskCancellationHandler {
            var outcomes = events
                .filter { $0.navigation?.id == navigation.id }
                .reductions(into: PageLoadProgress()) { progress, event in progress.apply(event) }
                .compactMap(\.outcome)
                .makeAsyncIterator()
            return await outcomes.next()
        } onCancel: {
            Task { @WebKitActor in view.stop() }
        }
        // No outcome means the stream ended: the view closed, which ends every
        // navigation as cancelled before completing its observables.
        return outcome ?? .failed(navigation, NavigationError(
            kind: .cancelled, domain: NavigationError.navwatchDomain,
            code: NavigationError.NavwatchCode.viewClosed.rawValue, message: "the web view was closed",
            failingURL: url), response: nil)
    }
}

/// The fold state of one navigation's events.
private struct PageLoadProgress: Sendable {
    var response: NavigationResponse?
    var outcome: PageLoadOutcome?

    mutating func apply(_ event: NavigationEvent) {
        switch event {
        case .didCommit(_, let committed): response = committed
        case .didFinish(let navigation): outcome = .finished(navigation, response: response)
        case .didFailProvisionalNavigation(let navigation, let error), .didFail(let navigation, let error):
            outcome = .failed(navigation, error, response: response)
        default: break
        }
    }
}
