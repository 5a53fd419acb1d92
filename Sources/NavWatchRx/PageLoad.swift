import Foundation
import NavWatch

@WebKitActor
extension Reactive where Base: WebView {
    /// Loads `url` and returns how that navigation ended.
    ///
    /// Folds the view's events (subscribed before the load starts, so nothing
    /// is missed) with `PageLoadState` until the navigation's terminal event.
    /// A finished outcome carries the document's title. Cancelling the
    /// awaiting task stops the load and returns its `cancelled` failure.
    /// Failures are values: it throws only when the load cannot start (see
    /// `WebView.load`).
    public func pageLoad(_ url: URL, timeout: Duration? = nil) async throws -> PageLoadOutcome {
        let events = self.events
        let view = base
        let start = ContinuousClock.now
        let navigation = try view.load(url, timeout: timeout)
        let fold = RunningFold(navigation: navigation, events: events, start: start)
        await withTaskCancellationHandler {
            await fold.wait(until: { $0.outcome != nil })
        } onCancel: {
            Task { @WebKitActor in view.stop() }
        }
        // No outcome: the events ended without a `.closed` (the view went away).
        return fold.stop().outcome ?? .failed(navigation, .viewClosed(url: url), response: nil)
    }
}
