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
        let navigation = try view.load(url, timeout: timeout)
        let outcome: PageLoadOutcome? = await withTaskCancellationHandler {
            var state = PageLoadState(navigation: navigation)
            for await event in events {
                state.apply(event)
                if let outcome = state.outcome { return outcome }
            }
            return nil
        } onCancel: {
            Task { @WebKitActor in view.stop() }
        }
        // No outcome: the events ended without a `.closed` (the view went away).
        return outcome ?? .failed(navigation, .viewClosed(url: url), response: nil)
    }
}
