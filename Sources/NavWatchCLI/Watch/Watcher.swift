import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchGuard
import NavWatchReports
import WebKitThread

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
        /// Where the trace of the loads goes (`Tracing`), as one HTML page; nil records none.
        package var trace: String?
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
        if options.trace != nil { view.tracing.start(title: urls.map(\.absoluteString).joined(separator: ", ")) }
        for url in urls where !interrupted {
            let start = clock.now
            // Only what the guard records from here on can be about this load.
            let guardMark = options.privateAddressGuard?.mark
            var report = options.recordRequests ? PageLoadReport(url: url.absoluteString, depth: 0, parent: nil,
                                                                 outcome: .failed) : nil
            report?.attempts = 1
            report?.network = options.network
            report?.emulation = PageLoadReport.EmulationInfo(options.configuration)
            report?.startedAt = Date()
            let fold = try view.loadFolding(url, timeout: options.timeout, start: start)
            let number = translator.begin(fold, at: start)
            self.fold = fold
            await waitUntilDone(fold, on: view, start: start, recording: &report, guardMark: guardMark)
            await view.tracing.addStep("goto \(url.absoluteString)", since: start, error: fold.state.error?.description)
            var summary = PageSummary(requested: url, nav: number, state: fold.state)
            summary.report = report
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
        if let path = options.trace {
            do {
                try await view.tracing.stop(writingTo: URL(fileURLWithPath: path))
            } catch {
                FileHandle.standardError.write(Data("navwatch: \(error)\n".utf8))
            }
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
    ///
    /// Records the load on `report`, if there is one, as the crawler records
    /// a page (`PageLoader`): the facts of a finished page read at its
    /// finish, the guard's verdict and blocked requests since `guardMark`,
    /// and with `.idle` the late window and why there is no first paint.
    /// With `.finish` its requests are as the page was when it ended, with
    /// `.commit` as they stood when the wait ended; those still on the
    /// network are pending.
    private func waitUntilDone(_ fold: RunningFold, on view: WebView, start: ContinuousClock.Instant,
                               recording report: inout PageLoadReport?, guardMark: GuardMark?) async {
        let waitUntil = options.waitUntil, privateAddressGuard = options.privateAddressGuard
        await fold.wait(until: { $0.isEnded || (waitUntil == .commit && $0.stage >= .committed) })
        let finished = fold.state.stage == .finished
        var facts: PageFacts?
        if report != nil {
            if finished { facts = await PageFacts.read(from: view) }
            report?.fetchedAt = Date()
        }
        guard finished, !interrupted, waitUntil == .idle else {
            report?.record(fold.state.atEnd ?? fold.state, facts: facts, now: clock.now - start,
                           guard: privateAddressGuard, since: guardMark)
            return
        }
        // The late window a crawl's report covers, with what arrives in it printed as it comes.
        let window = LateWindow(fold: fold, start: start, settle: options.settle)
        lateWindow = window
        let closed = await window.closed()
        lateWindow = nil
        guard report != nil else { return }
        var paint: PageFacts.Paint?
        if PageFacts.Paint.isReadAfter(closed.closedBy, facts: facts) { paint = await PageFacts.Paint.read(from: view) }
        report?.recordClosedWindow(closed, facts: facts, paint: paint, guard: privateAddressGuard, since: guardMark)
    }
}
