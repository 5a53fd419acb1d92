import Foundation
import NavWatch
import WebKitThread

@WebKitActor
extension Reactive where Base: WebView {
    /// Loads `url` and returns how that navigation ended.
    ///
    /// Folds the navigation's events, from before the load is asked for so
    /// that nothing is missed, until its terminal event. A finished outcome
    /// carries the document's title. Cancelling the awaiting task stops the
    /// load and returns its `cancelled` failure. Failures are values: it
    /// throws only when the load cannot start (see `WebView.load`).
    public func pageLoad(_ url: URL, timeout: Duration? = nil) async throws -> PageLoadOutcome {
        let view = base
        let fold = try view.loadFolding(url, timeout: timeout)
        let navigation = fold.state.navigation
        await withTaskCancellationHandler {
            await fold.wait(until: { $0.outcome != nil })
        } onCancel: {
            Task { @WebKitActor in view.stop() }
        }
        // No outcome: the events ended without a `.closed` (the view went away).
        return fold.stop().outcome ?? .failed(navigation, .viewClosed(url: url), response: nil)
    }
}
