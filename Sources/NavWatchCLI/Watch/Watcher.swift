import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchGuard
import WebKitThread

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
    /// The load as a report with every request, when `Options.recordRequests` is set.
    package var report: PageLoadReport?
    /// The screenshot written, when `Options.screenshot` is set and the page finished.
    package var screenshot: String?

    /// The summary of the navigation to `requested`, numbered `nav`, as
    /// `state` has it when it was done being watched.
    init(requested: URL, nav: Int, state: PageLoadState) {
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

/// Loads URLs one after another in one view and reports every event of every
/// navigation, the moment it happens, to `emit` (called on the WebKit thread,
/// in order). Every navigation gets exactly one terminal event: `finished`,
/// `failed` or `terminated`.
@WebKitActor
package final class Watcher {
    package struct Options: Sendable {
        package var timeout: Duration = .seconds(30)
        package var waitUntil: WaitUntil = .idle
        /// With `.idle`: the late window's settle time.
        package var settle = LateWindow.defaultSettle
        package var resources = false
        /// Read every request of each page (for `--har`) once it is done.
        package var recordRequests = false
        /// Where a PNG of each finished page's viewport goes: this path for
        /// one URL; for several, `-1`, `-2`, ... before its extension.
        package var screenshot: String?
        /// The whole page in the screenshot, not just the viewport.
        package var fullPageScreenshot = false
        package var configuration = WebViewConfiguration()
        /// The guard the view's requests go through (`--block-private`), if
        /// any: each URL it refused is passed to `onBlocked` once, the
        /// moment WebKit ends the request.
        package var privateAddressGuard: PrivateAddressGuard?
        /// The network the guard shapes the view's requests to, which reports name.
        package var network: NetworkProfile?
        package init() {}
    }

    private let options: Options
    private let emit: (WatchEvent) -> Void
    private let onBlocked: (URL, BlockedRequest) -> Void
    private let clock = ContinuousClock()
    private var view: WebView?
    /// The fold of the URL being watched.
    private var fold: RunningFold?
    /// Its late window, while `.idle` waits for it.
    private var lateWindow: LateWindow?
    private var interrupted = false

    /// - Parameters:
    ///   - emit: every event, in order, on the WebKit thread.
    ///   - onBlocked: each URL `options.privateAddressGuard` refused, once,
    ///     with the guard's record of it; on the WebKit thread, in the order
    ///     WebKit ended the requests.
    package init(options: Options, emit: @escaping (WatchEvent) -> Void,
                onBlocked: @escaping (URL, BlockedRequest) -> Void = { _, _ in }) {
        self.options = options
        self.emit = emit
        self.onBlocked = onBlocked
    }

    /// Watches each URL in turn; returns one summary per URL that was started.
    /// Stops early, after reporting the current navigation as cancelled, when
    /// `interrupt()` is called.
    package func run(_ urls: [URL]) async throws -> [PageSummary] {
        let view = try WebView(configuration: options.configuration)
        self.view = view
        let translator = WatchEventTranslator(view: view, resources: options.resources,
                                              privateAddressGuard: options.privateAddressGuard,
                                              emit: emit, onBlocked: onBlocked)
        view.navigationDelegate = translator  // held weakly: `translator` lives until the end of the run
        var summaries: [PageSummary] = []
        for url in urls where !interrupted {
            let start = clock.now
            let fold = try view.loadFolding(url, timeout: options.timeout, start: start)
            let number = translator.begin(fold, at: start)
            self.fold = fold
            await waitUntilDone(fold, start: start)
            var summary = PageSummary(requested: url, nav: number, state: fold.state)
            if options.recordRequests {
                summary.report = await record(url, fold, on: view, start: start)
            }
            if let path = options.screenshot, summary.finishMilliseconds != nil {
                let file = urls.count == 1 ? path : Self.numbered(path, summaries.count + 1)
                do {
                    try await view.writeScreenshot(to: file, fullPage: options.fullPageScreenshot)
                    summary.screenshot = file
                } catch {
                    // The page itself loaded: say so on standard error and go on with the next.
                    FileHandle.standardError.write(Data("navwatch: cannot write the screenshot \(file): \(error)\n".utf8))
                }
            }
            summaries.append(summary)
            _ = fold.stop()
            self.fold = nil
        }
        view.close()  // ends a navigation still running as cancelled, printed at once
        withExtendedLifetime(translator) {}
        self.view = nil
        return summaries
    }

    /// Stops the running navigation (reported as cancelled) and starts no other.
    package func interrupt() {
        interrupted = true
        view?.stop()
        fold?.stopWaiting()
        lateWindow?.close()
    }

    /// `path` with `-number` before its extension.
    static func numbered(_ path: String, _ number: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        return ext.isEmpty ? "\(stem)-\(number)" : "\(stem)-\(number).\(ext)"
    }

    /// Returns when the navigation has reached `options.waitUntil` (with
    /// `.idle`: its late window, the one rule of when a page's requests are
    /// settled, has closed), has failed, or the watcher was interrupted.
    private func waitUntilDone(_ fold: RunningFold, start: ContinuousClock.Instant) async {
        let waitUntil = options.waitUntil
        await fold.wait(until: { $0.isEnded || (waitUntil == .commit && $0.stage >= .committed) })
        guard case .finished? = fold.state.outcome, !interrupted, waitUntil == .idle else { return }
        // The late window a crawl's report covers, with what arrives in it printed as it comes.
        let window = LateWindow(fold: fold, start: start, settle: options.settle)
        lateWindow = window
        _ = await window.closed()
        lateWindow = nil
    }

    /// Makes the current page's report, with every request it made until
    /// it was done (`waitUntil`): with `.idle`, until its late window closed,
    /// as a crawl's report has them; with `.finish`, as the finish left them
    /// (what the page does while its facts are read is after that point).
    /// Requests still on the network then are pending.
    private func record(_ url: URL, _ fold: RunningFold, on view: WebView, start: ContinuousClock.Instant) async -> PageLoadReport {
        var facts: PageFacts?
        if case .finished? = fold.state.outcome {
            facts = await PageFacts.read(from: view)
        }
        let now = clock.now - start
        var report = PageLoadReport(url: url.absoluteString, depth: 0, parent: nil, outcome: .failed)
        report.startedAt = Date().addingTimeInterval(-now.seconds)
        report.attempts = 1
        report.network = options.network
        let state = options.waitUntil == .idle ? fold.state : fold.state.atEnd ?? fold.state
        report.record(state, facts: facts, now: now)
        return report
    }
}
