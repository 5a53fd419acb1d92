import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP
import NavWatchRx
import WebKitThread

/// What loading one frontier entry produced.
package struct PageResult: Sendable {
    /// The report as the page ended; `completed()` adds its late window.
    package var report: PageLoadReport
    /// The links found on the page, in document order.
    var links: [PageFacts.Link] = []
    /// The URLs this load answered for besides its own (redirect hops, final URL).
    var aliases: [String] = []
    /// The `Retry-After` the server asked for, in seconds.
    var retryAfter: Double?
    /// The web process went away during the load: replace the view.
    var crashed = false
    /// For a finished page: the report once its late window has closed.
    var completion: (@WebKitActor @Sendable () async -> PageLoadReport)? = nil
    /// Why a crawl that renders only some pages rendered this one (`RenderMode.auto`).
    var renderReason: RenderSampler.Reason?

    /// The result with its final report: for a finished page, once its late
    /// window has closed (`LateWindow`); at once otherwise.
    package func completed() async -> PageResult {
        var result = self
        if let completion {
            result.report = await completion()
            result.completion = nil
        }
        if let renderReason {
            result.report.rendered = true
            result.report.renderReason = renderReason.rawValue
        }
        return result
    }
}

/// One web view of the crawler's pool, loading one page at a time and turning
/// its navigation and resource events into a `PageLoadReport`. Replaces its
/// view after `recycleAfter` pages (so memory stays flat) or a crash.
///
/// A finished page's report is completed when its late window closes
/// (`LateWindow`), while the view loads the next page.
@WebKitActor
package final class PageLoader {
    private let configuration: WebViewConfiguration
    private let recycleAfter: Int
    private let settle: Duration
    private var view: WebView?
    private var pagesOnView = 0
    private let clock = ContinuousClock()
    /// The late window of the last page the view finished, while it may be open.
    private var lateWindow: LateWindow?

    /// Called when a page's load has been asked for (tests use it to crash the view).
    private let onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

    private let screenshotDirectory: URL?
    /// Runs on each finished page before the view moves on, for `handlerTimeout` at most.
    private let pageHandler: PageHandler?
    private let handlerTimeout: Duration
    /// The guard `configuration.networkProxy` points at, asked what became
    /// of the requests it refused or could not carry out.
    private let privateAddressGuard: PrivateAddressGuard?

    package init(configuration: WebViewConfiguration, recycleAfter: Int, settle: Duration = LateWindow.defaultSettle,
                 screenshotDirectory: URL? = nil, privateAddressGuard: PrivateAddressGuard? = nil,
                 pageHandler: PageHandler? = nil, handlerTimeout: Duration = CrawlConfiguration.defaultHandlerTimeout,
                 onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)? = nil) {
        self.configuration = configuration
        self.recycleAfter = max(1, recycleAfter)
        self.settle = settle
        self.screenshotDirectory = screenshotDirectory
        self.privateAddressGuard = privateAddressGuard
        self.pageHandler = pageHandler
        self.handlerTimeout = handlerTimeout
        self.onLoadStarted = onLoadStarted
    }

    /// Closes the view: a late window still open closes with it.
    package func close() {
        view?.close()
        view = nil
        lateWindow = nil
    }

    /// The view pages load in, created when there is none. A new view first
    /// loads a blank page, so its web process is running before any page's
    /// timeout starts.
    @discardableResult
    package func prepare() async throws -> WebView {
        if let view { return view }
        let view = try WebView(configuration: configuration)
        self.view = view
        pagesOnView = 0
        _ = try await view.rx.pageLoad(URL(string: "about:blank")!, timeout: .seconds(30))
        return view
    }

    /// Loads `entry` and reports on it. Never throws: every failure is in the report.
    package func load(_ entry: FrontierEntry, timeout: Duration) async throws -> PageResult {
        if pagesOnView >= recycleAfter { close() }
        let view = try await prepare()
        pagesOnView += 1
        lateWindow?.nextLoadRequested()
        lateWindow = nil

        var report = PageLoadReport(entry, outcome: .failed)
        report.attempts = entry.attempts + 1
        var result = PageResult(report: report)
        let events = view.rx.events  // subscribed before the load
        let start = clock.now
        // Only what the guard records from here on can be about this load.
        let guardMark = privateAddressGuard?.mark
        result.report.startedAt = Date()
        let navigation = try view.load(URL(string: entry.url)!, timeout: timeout)
        onLoadStarted?(navigation.url, view)

        let fold = RunningFold(navigation: navigation, events: events, start: start)
        await fold.wait(until: { $0.isEnded })
        var facts: PageFacts?
        if case .finished? = fold.state.outcome {
            facts = await PageFacts.read(from: view)
            if let screenshotDirectory {
                let name = PageLoadReport.screenshotName(for: entry.url)
                if (try? await view.writeScreenshot(to: screenshotDirectory.appendingPathComponent(name).path)) != nil {
                    result.report.screenshot = name
                }
            }
        }
        result.report.fetchedAt = Date()
        var ended = result.report
        let finished = fold.state.stage == .finished
        // A finished page's requests are recorded when its window closes.
        result.report = complete(ended, fold.state, facts: facts, now: clock.now - start, guardMark: guardMark,
                                 includingRequests: !finished)
        var enqueued: [URL] = []
        if finished, let pageHandler {
            let run = await PageHandlerRun.run(pageHandler, on: CrawledPage(view: view, report: result.report),
                                               timeout: handlerTimeout)
            (ended.data, ended.handlerError, enqueued) = (run.data, run.error, run.enqueued)
            (result.report.data, result.report.handlerError) = (run.data, run.error)
        }
        if finished {
            let window = LateWindow(fold: fold, start: start, settle: settle)
            lateWindow = window
            result.completion = { [facts] in
                let (state, closedBy, closedAt) = await window.closed()
                var report = self.complete(ended, state, facts: facts, now: closedAt, guardMark: guardMark)
                report.recordLateWindow(of: state, closedBy: closedBy, at: closedAt)
                return report
            }
        } else {
            _ = fold.stop()
        }
        result.links = result.report.wasLoaded ? facts?.links ?? [] : []
        result.links += enqueued.map { PageFacts.Link(url: $0.absoluteString, href: $0.absoluteString, text: "", rel: "",
                                                      element: PageFacts.Link.enqueuedElement) }
        let state = fold.state.reportedState
        result.crashed = state.webProcessTermination != nil || result.report.outcome == .crashed
        if let retryAfter = state.response?.value(forHeader: "Retry-After") {
            result.retryAfter = RetryAfter.seconds(from: retryAfter)
        }
        if result.crashed { close() }
        result.aliases = result.report.aliases
        return result
    }

    /// `report` filled from `live` and `facts`, with the guard's answers
    /// about the page and (`includingRequests`) its requests since `guardMark`.
    private func complete(_ report: PageLoadReport, _ live: PageLoadState, facts: PageFacts?, now: Duration,
                          guardMark: GuardMark?, includingRequests: Bool = true) -> PageLoadReport {
        var report = report
        report.record(live, facts: facts, now: now, includingRequests: includingRequests)
        guard let privateAddressGuard else { return report }
        let lastURL = live.reportedState.lastURL
        report.applyGuard(privateAddressGuard.verdict(for: lastURL, since: guardMark), at: lastURL)
        guard includingRequests else { return report }
        report.resources.blocked = report.requests.filter { request in
            guard request.url != lastURL.absoluteString, let url = URL(string: request.url),
                  case .blocked? = privateAddressGuard.verdict(for: url, since: guardMark) else { return false }
            return true
        }.count
        return report
    }
}
