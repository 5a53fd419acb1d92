import Foundation
import NavWatch
import WebKitThread

/// The time after a page finished in which what it does still counts as its
/// own: console messages and page errors the view attributes to it, requests
/// it starts, and the ends of requests still on the network.
///
/// The window opens when the page finishes and closes at the first of:
/// - the view's next page commits (`nextPage`) and the requests the page
///   started before it finished have ended; requests that start before that
///   commit are this page's, except the next page's own document (the page
///   loader loads a page in a view whose window is open only when all of
///   its views hold one);
/// - `settle` passes with no event on the page's own requests (`quiet`);
/// - the view closes, or `close()` is called (`viewClosed`);
/// - `10 × settle` after the page finished (`limit`), for a page that keeps
///   its requests busy while the view has nothing else to load.
///
/// The loader moves on while the window is open: it starts the next page in
/// another view, and the report is completed when the window closes.
@WebKitActor
package final class LateWindow {
    /// Why a window closed, as reports name it.
    package typealias ClosedBy = PageLoadReport.LateInfo.ClosedBy

    /// The settle time when none is configured: 500 ms, as in Playwright's
    /// and Puppeteer's network idle.
    package nonisolated static let defaultSettle: Duration = .milliseconds(500)

    private let fold: RunningFold
    private let start: ContinuousClock.Instant
    private let settle: Duration
    private let clock = ContinuousClock()
    private var closing: Task<(state: PageLoadState, closedBy: ClosedBy, at: Duration), Never>?
    /// Whether the window has closed (and its fold stopped).
    package private(set) var isClosed = false
    private var closeRequested = false

    /// Opens the window of the page `fold` folds, which has finished.
    /// `start` is the instant the fold's times are relative to. The window
    /// closes (and stops the fold) by itself, whether or not anybody waits.
    package init(fold: RunningFold, start: ContinuousClock.Instant, settle: Duration) {
        self.fold = fold
        self.start = start
        self.settle = settle
        closing = Task { @WebKitActor in
            let closedBy = await self.waitForClose()
            self.isClosed = true
            return (self.fold.stop(), closedBy, self.clock.now - self.start)
        }
    }

    /// Closes the window now, as if its view had closed (`viewClosed`): for
    /// a watcher that was interrupted.
    package func close() {
        closeRequested = true
        fold.stopWaiting()
    }

    /// The view is about to load another page: its main resource, and every
    /// request once it has committed, are not this page's.
    package func nextLoadRequested() {
        fold.nextLoadRequested()
    }

    /// Waits for the window to close, then stops the fold: the page's final
    /// state, why the window closed and when (on the fold's clock). Every
    /// caller gets the same answer.
    package func closed() async -> (state: PageLoadState, closedBy: ClosedBy, at: Duration) {
        await closing!.value
    }

    private func waitForClose() async -> ClosedBy {
        let endedAt = fold.state.endedAt ?? (clock.now - start)
        let limit = start + endedAt + settle * 10
        while true {
            if fold.hasEnded || closeRequested { return .viewClosed }
            if fold.otherNavigationCommitted && fold.state.pendingBeforeEnd == 0 { return .nextPage }
            let quietSince = max(fold.lastOwnResourceEventAt ?? endedAt, endedAt)
            let quietUntil = start + quietSince + settle
            let now = clock.now
            if now >= quietUntil { return .quiet }
            if now >= limit { return .limit }
            // Woken only by what can close the window sooner or keep it open longer.
            let seen = fold.lastOwnResourceEventAt
            await fold.wait(until: { [fold] state in
                (fold.otherNavigationCommitted && state.pendingBeforeEnd == 0) || fold.lastOwnResourceEventAt != seen
            }, deadline: min(quietUntil, limit))
        }
    }
}
