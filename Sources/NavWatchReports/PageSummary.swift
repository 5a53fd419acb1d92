import Foundation
import NavWatch
import NavWatchCrawler

/// How one requested URL went, for the summary line and the exit code.
package struct PageSummary: Sendable, Equatable {
    package var requested: URL
    package var nav: Int
    package var status: Int?
    package var finalURL: String?
    package var commitMilliseconds: Double?
    package var finishMilliseconds: Double?
    package var title: String?
    package var error: NavigationError?
    /// Console messages at level error and warning, and page errors, while it was watched.
    package var consoleErrors = 0
    package var consoleWarnings = 0
    package var pageErrors = 0
    /// Reached its `WaitUntil` point with an HTTP status below 400.
    package var succeeded: Bool
    /// The load as a report with every request, when the watcher records requests (`--har`).
    package var report: PageLoadReport?
    /// The screenshot written, when one was asked for (`--screenshot`) and the page finished.
    package var screenshot: String?

    /// The summary of the navigation to `requested`, numbered `nav`, as
    /// `state` has it when it was done being watched.
    package init(requested: URL, nav: Int, state: PageLoadState) {
        let finished = state.stage == .finished
        self.requested = requested
        self.nav = nav
        status = state.httpStatus
        finalURL = state.response?.url.absoluteString ?? (finished ? state.navigation.url.absoluteString : nil)
        commitMilliseconds = state.committedAt?.milliseconds
        finishMilliseconds = finished ? state.endedAt?.milliseconds : nil
        title = finished ? state.title : nil
        error = state.error
        consoleErrors = state.consoleCounts[.error] ?? 0
        consoleWarnings = state.consoleCounts[.warning] ?? 0
        pageErrors = state.pageErrorCount
        succeeded = state.error == nil && state.committedAt != nil && (state.httpStatus ?? 0) < 400
    }
}
