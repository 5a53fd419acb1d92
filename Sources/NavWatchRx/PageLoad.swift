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
        try await base.goto(url, timeout: timeout)
    }
}
