import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTML
import NavWatchHTTP
import NavWatchRx
import WebKitThread

/// What loading one frontier entry produced.
package struct PageResult: Sendable {
    /// The report as the page ended; `completed()` adds its late window.
    package var report: PageLoadReport
    /// The links found on the page, in document order.
    var links: [PageFacts.Link] = []
    /// The resources the page embeds, in document order.
    var embedded: [EmbeddedResource] = []
    /// For a rendered page loaded `readingLinksAtLoad`: the URLs of its
    /// links as its `load` event left them (`WebView.linksAtLoadScript`).
    var linksAtLoad: [String]?
    /// For a rendered page: the answers to its own requests for its
    /// subresources, by canonical URL (`PageResourceAnswer`).
    var resourceAnswers: [String: PageResourceAnswer] = [:]
    /// The URLs this load answered for besides its own (redirect hops, final URL).
    var aliases: [String] = []
    /// The `Retry-After` the server asked for, in seconds.
    var retryAfter: Double?
    /// The web process went away during the load: replace the view.
    var crashed = false
    /// For a finished page: the report once its late window has closed.
    var completion: (@WebKitActor @Sendable () async -> PageLoadReport)? = nil
    /// Why a crawl that renders only some pages rendered this one (`RenderMode.auto`).
    var renderReason: PageLoadReport.RenderReason?

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
            result.report.renderReason = renderReason
        }
        return result
    }
}

/// One page loader of the crawler's pool: loads one page at a time and turns
/// its navigation and resource events into a `PageLoadReport`.
///
/// A finished page stays on its view while its late window is open
/// (`LateWindow`), and the next page loads in another view of the loader,
/// which shares the first view's web process. The loader keeps at most
/// `views` views: when every one holds a page whose window is open,
/// the oldest such page's window closes at the next page's commit
/// (`next-page`). After `recycleAfter` pages (so memory stays flat) or a
/// crash, the loader starts again with new views in a new web process; the
/// old views close as their windows do.
@WebKitActor
package final class PageLoader {
    /// The most views the loaders of one crawl keep together (each keeps at
    /// least two): every live page costs the WebKit thread and its web
    /// process a little on each event, so the count is bounded, not the
    /// window. A finished page's window lasts at least as many page loads
    /// of its loader as the loader has views.
    package nonisolated static let viewsPerCrawl = 24

    /// The views each of `concurrency` loaders keeps.
    package nonisolated static func views(concurrency: Int) -> Int {
        max(2, viewsPerCrawl / max(1, concurrency))
    }
    private let viewLimit: Int

    /// A view of the loader and the late window of the finished page it shows.
    private final class Slot {
        let view: WebView
        /// The window of the page the view shows, until it closes and the
        /// view is free for another page.
        var window: LateWindow?
        /// Ends once `window` has closed and what is read after it (paint) has been.
        var ending: Task<LateEnd, Never>?
        /// When `window` opened, in pages of the loader: the oldest closes first.
        var openedAt = 0
        /// Left by a recycle or crash: closed once its window is.
        var retired = false
        init(view: WebView) { self.view = view }
    }

    /// How a page's window closed, and its first contentful paint read after it.
    private typealias LateEnd = (state: PageLoadState, closedBy: LateWindow.ClosedBy, at: Duration,
                                 paint: PageFacts.Paint?)

    private let configuration: WebViewConfiguration
    private let recycleAfter: Int
    private let settle: Duration
    /// The views sharing the current web process; the first was created alone.
    private var slots: [Slot] = []
    /// Views of an earlier process, each closed once its window closes.
    private var retired: [Slot] = []
    private var pagesOnProcess = 0
    private var pagesLoaded = 0
    /// The view `ready(for:)` made ready, and the URL it is ready for.
    private var readied: (url: String, slot: Slot)?
    private let clock = ContinuousClock()

    /// Called when a page's load has been asked for (tests use it to crash the view).
    private let onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

    private let screenshotDirectory: URL?
    /// Runs on each finished page before the view moves on, for `handlerTimeout` at most.
    private let pageHandler: PageHandler?
    private let handlerTimeout: Duration
    /// Clicks each finished page's clickable elements (`CrawlConfiguration.routeClicks`).
    private let routeExplorer: RouteExplorer?
    /// The guard `configuration.networkProxy` points at, asked what became
    /// of the requests it refused or could not carry out.
    private let privateAddressGuard: PrivateAddressGuard?
    /// The network the loader's views load over, which its reports name.
    private let network: NetworkProfile?
    /// What its views emulate, for each rendered page's report; nil when they keep every default.
    private let emulation: PageLoadReport.EmulationInfo?

    package init(configuration: WebViewConfiguration, recycleAfter: Int, settle: Duration = LateWindow.defaultSettle,
                 screenshotDirectory: URL? = nil, privateAddressGuard: PrivateAddressGuard? = nil,
                 network: NetworkProfile? = nil,
                 pageHandler: PageHandler? = nil, handlerTimeout: Duration = CrawlConfiguration.defaultHandlerTimeout,
                 views: Int = PageLoader.views(concurrency: 1), routes: (memory: RouteMemory, clicks: Int)? = nil,
                 onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)? = nil) {
        routeExplorer = routes.map { RouteExplorer(memory: $0.memory, limit: $0.clicks, configuration: configuration,
                                                   recycleAfter: recycleAfter) }
        self.configuration = configuration
        viewLimit = max(1, views)
        self.recycleAfter = max(1, recycleAfter)
        self.settle = settle
        self.screenshotDirectory = screenshotDirectory
        self.privateAddressGuard = privateAddressGuard
        self.network = network
        emulation = PageLoadReport.EmulationInfo(configuration)
        self.pageHandler = pageHandler
        self.handlerTimeout = handlerTimeout
        self.onLoadStarted = onLoadStarted
    }

    /// Closes every view: the late windows still open close with them (`view-closed`).
    package func close() {
        routeExplorer?.close()
        for slot in slots + retired { slot.view.close() }
        slots = []
        retired = []
    }

    /// The loader's first view, created when there is none. A new first view
    /// first loads a blank page, so its web process is running before any
    /// page's timeout starts; the loader's other views share that process.
    @discardableResult
    package func prepare() async throws -> WebView {
        if let first = slots.first { return first.view }
        let view = try WebView(configuration: configuration)
        slots = [Slot(view: view)]
        pagesOnProcess = 0
        try await view.showBlankPage()
        return view
    }

    /// Leaves the current views: each closes now, or when its window does.
    private func retireViews() {
        for slot in slots {
            if slot.window == nil {
                slot.view.close()
            } else {
                slot.retired = true
                retired.append(slot)
            }
        }
        slots = []
    }

    /// A view free for the next page: one whose page's window has closed,
    /// else a new one while there are fewer than `viewLimit`, else the
    /// one whose window opened first, which the next page's commit closes.
    private func freeSlot() async throws -> Slot {
        if pagesOnProcess >= recycleAfter { retireViews() }
        try await prepare()
        if let free = slots.first(where: { $0.window == nil }) { return free }
        if slots.count < viewLimit {
            let slot = Slot(view: try WebView(configuration: configuration, sharingProcessWith: slots[0].view))
            slots.append(slot)
            try await slot.view.showBlankPage()
            return slot
        }
        let oldest = slots.min { $0.openedAt < $1.openedAt }!
        if oldest.window?.isClosed == true {
            _ = await oldest.ending?.value  // what it reads after its window is read from its own page
        } else {
            oldest.window?.nextLoadRequested()
        }
        oldest.window = nil
        return oldest
    }

    /// `slot`'s window has closed: the view is free, or closes if retired.
    private func windowClosed(_ window: LateWindow, in slot: Slot) {
        guard slot.window === window else { return }
        slot.window = nil
        if slot.retired {
            slot.view.close()
            retired.removeAll { $0 === slot }
        }
    }

    /// Makes a view ready for `entry` without asking for it: a free view
    /// (one made now, or one whose page's late window closes now) that has
    /// left a document `entry` would only scroll in. A `load` of `entry`
    /// that follows then asks for the page at once, so the pace a crawl
    /// keeps between its requests to a host (`Crawler.waitForTurn`) is the
    /// pace the host sees.
    package func ready(for entry: FrontierEntry) async throws {
        let slot = try await freeSlot()
        await slot.view.leaveDocument(before: URL(string: entry.url)!)
        readied = (entry.url, slot)
    }

    /// Loads `entry` and reports on it, in the view `ready(for:)` made ready
    /// for it if it was the last one asked for, else in a free view. Never
    /// throws: every failure is in the report. With `readingLinksAtLoad`, the
    /// result also has the page's links as its `load` event left them.
    package func load(_ entry: FrontierEntry, timeout: Duration, readingLinksAtLoad: Bool = false) async throws -> PageResult {
        let url = URL(string: entry.url)!
        let slot = try await slot(for: url)
        let view = slot.view
        pagesOnProcess += 1
        pagesLoaded += 1

        var result = PageResult(report: PageLoadReport(entry, outcome: .failed))
        result.report.attempts = entry.attempts + 1
        result.report.network = network
        result.report.emulation = emulation
        let start = clock.now
        // Only what the guard records from here on can be about this load.
        let guardMark = privateAddressGuard?.mark
        result.report.startedAt = Date()
        let fold = try view.loadFolding(url, timeout: timeout, start: start)
        onLoadStarted?(fold.state.navigation.url, view)

        await fold.wait(until: { $0.isEnded })
        let finished = fold.state.stage == .finished
        let facts = finished ? await PageFacts.read(from: view) : nil
        if finished, readingLinksAtLoad {
            result.linksAtLoad = await PageFacts.readInOwnWorld(WebView.linksAtLoadScript, from: view)
        }
        if finished, let screenshotDirectory {
            let name = PageLoadReport.screenshotName(for: entry.url)
            if (try? await view.writeScreenshot(to: screenshotDirectory.appendingPathComponent(name).path)) != nil {
                result.report.screenshot = name
            }
        }
        result.report.fetchedAt = Date()
        // A finished page's requests are recorded when its window closes.
        result.report.record(fold.state, facts: facts, now: clock.now - start, guard: privateAddressGuard,
                             since: guardMark, includingRequests: !finished)
        if finished {
            result.links = await runPageHandler(on: view, url: url, timeout: timeout, report: &result.report)
            result.completion = openLateWindow(fold, in: slot, start: start, facts: facts, report: result.report,
                                               guardMark: guardMark)
        } else {
            _ = fold.stop()
        }
        if result.report.wasLoaded {
            result.links = (facts?.links ?? []) + result.links
            result.embedded = facts?.embedded ?? []
            result.resourceAnswers = PageResourceAnswer.answers(to: fold.state.requests) { [privateAddressGuard] url in
                guard case .blocked? = privateAddressGuard?.verdict(for: url, since: guardMark) else { return false }
                return true
            }
        }
        let state = fold.state.reportedState
        result.crashed = state.webProcessTermination != nil || result.report.outcome == .crashed
        if let retryAfter = state.response?.value(forHeader: "Retry-After") {
            result.retryAfter = RetryAfter.seconds(from: retryAfter)
        }
        if result.crashed {
            // The views that share the process lost their pages with it.
            for slot in slots { slot.view.close() }
            slots = []
        }
        result.aliases = result.report.aliases
        return result
    }

    /// The view `ready(for:)` made ready for `url`, if it was the last one
    /// asked for; else a free view, off any document `url` would only scroll in.
    private func slot(for url: URL) async throws -> Slot {
        defer { readied = nil }
        if let readied, readied.url == url.absoluteString, slots.contains(where: { $0 === readied.slot }) {
            return readied.slot
        }
        let slot = try await freeSlot()
        await slot.view.leaveDocument(before: url)
        return slot
    }

    /// Runs what a crawl does on a finished page before the view moves on:
    /// the page handler (`--extract`), whose data and error go in `report`,
    /// and the route clicks. Returns the links they found, the handler's first.
    private func runPageHandler(on view: WebView, url: URL, timeout: Duration,
                                report: inout PageLoadReport) async -> [PageFacts.Link] {
        var links: [PageFacts.Link] = []
        if let pageHandler {
            let run = await PageHandlerRun.run(pageHandler, on: CrawledPage(view: view, report: report),
                                               timeout: handlerTimeout)
            (report.data, report.handlerError) = (run.data, run.error)
            links += run.enqueued.map { PageFacts.Link(url: $0.absoluteString, href: $0.absoluteString, text: "", rel: "",
                                                       element: PageFacts.Link.enqueuedElement) }
        }
        if let routeExplorer {
            let exploration = await routeExplorer.explore(view, page: url, timeout: timeout)
            links += exploration.links
            if !exploration.refused.isEmpty { report.refusedRequests = exploration.refused }
        }
        return links
    }

    /// Opens the late window of the finished page `fold` folds, shown in
    /// `slot`, and returns what completes its `report` once the window has
    /// closed (`PageLoadReport.recordClosedWindow`). A first paint the
    /// finish's `facts` lacked is read while the view still shows the page.
    private func openLateWindow(_ fold: RunningFold, in slot: Slot, start: ContinuousClock.Instant, facts: PageFacts?,
                                report: PageLoadReport,
                                guardMark: GuardMark?) -> @WebKitActor @Sendable () async -> PageLoadReport {
        let window = LateWindow(fold: fold, start: start, settle: settle)
        slot.window = window
        slot.openedAt = pagesLoaded
        let ending = Task { @WebKitActor [slot] () -> LateEnd in
            let (state, closedBy, closedAt) = await window.closed()
            var paint: PageFacts.Paint?
            if slot.window === window && PageFacts.Paint.isReadAfter(closedBy, facts: facts) {
                paint = await PageFacts.Paint.read(from: slot.view)
            }
            self.windowClosed(window, in: slot)
            return (state, closedBy, closedAt, paint)
        }
        slot.ending = ending
        return { [privateAddressGuard] in
            let (state, closedBy, closedAt, paint) = await ending.value
            var report = report
            report.recordClosedWindow((state, closedBy, closedAt), facts: facts, paint: paint,
                                      guard: privateAddressGuard, since: guardMark)
            return report
        }
    }
}
