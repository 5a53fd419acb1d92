import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP
import WebKitThread

/// Crawls breadth-first from the seeds with a pool of web views, storing
/// the frontier and one report per URL in a crawl store as it goes.
///
/// A web-process crash or a hung view never stops the crawl: the view is
/// replaced and the page retried or reported. Redirect targets count as seen,
/// so no page is reported twice. Every report is stored in one transaction
/// with the links it found, so a process killed at any moment loses
/// nothing: a crawler on the same store resumes where it stopped.
///
/// Run one crawl per crawler, with `run(onReport:)` or `reports()`.
public actor Crawler {
    // Its jobs are in files of their own: this one sets the crawl up and
    // closes it; `Crawler+Workers` has the worker loops; `Crawler+NextEntry`
    // leases the next URL to load; `Crawler+RenderDecisions` decides what
    // to render; `Crawler+Storing` takes in each page's links and stores
    // and delivers its report.

    /// Called with each report right after it was stored.
    public typealias ReportHandler = @Sendable (PageLoadReport) -> Void

    /// The caller's configuration, with the stored crawl's settings once running.
    var configuration: CrawlConfiguration
    let store: any CrawlStore
    /// Sorts each page's links; made anew when the stored settings apply.
    var links: LinkClassifier
    /// The configured seeds and, on a resume, those of the stored crawl.
    var seeds: [URL]
    /// robots.txt by origin, while the crawl runs.
    var robots: RobotsCache?
    /// The URLs this crawler holds leases on; renewed until completed or put back.
    var leased: Set<String> = []
    /// When this crawler's workers may next ask each host whose requests are
    /// kept apart (`waitForTurn`), by pacing key (`FrontierEntry.host`).
    var hostTurns: [String: ContinuousClock.Instant] = [:]
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Counts this crawler's changes to the frontier (pages finished, links
    /// offered), so that a wait never misses one made while the store was being asked.
    var changes = 0
    /// Which workers ask the store for the next entry, when it is not shared.
    var leaseGate = LeaseGate()
    var summary = CrawlSummary()
    var onReport: ReportHandler = { _ in }
    /// The last write of reports to the store; each waits for the one before,
    /// so reports are delivered in the order they were stored.
    var storing: Task<Void, any Error>?
    let clock = ContinuousClock()
    /// While a crawl without `allowPrivateAddresses` runs: the proxy all its
    /// requests go through (`SharedGuard`), allowing the seeds' hosts.
    var privateAddressGuard: PrivateAddressGuard?
    /// With a `network`: the guard of each loader, which shapes its link; shut when the crawl ends.
    var linkGuards: [PrivateAddressGuard] = []
    /// The seeds' hosts, which the crawl's guards let through.
    var seedHosts: Set<String> = []

    /// The URLs this run already offered to the store's frontier (found on
    /// a page, followed or skipped), up to `rememberedOffers`: the store
    /// keeps the first offer of a URL and ignores the rest, so those are not
    /// sent again.
    var offered: Set<String> = []
    static let rememberedOffers = 50_000

    /// The links of pages whose load ended and whose report is not stored
    /// yet (their late window is open), by page URL: stored with the report.
    /// A worker that finds nothing to lease offers their `discovered`
    /// entries to the frontier at once (`offerWaitingLinks()`).
    var waitingLinks: [String: SortedLinks] = [:]
    struct SortedLinks {
        var discovered: [FrontierEntry]
        var skipped: SkippedLinks
        var links: [PageLink]
    }

    /// With `RenderMode.auto`: which pages to render, from what renders of their kind showed.
    var sampler = RenderSampler()
    /// The links each kind's renders taught, resolved for the pages of one
    /// origin, with their keys (`learnedLinks`): the same for every such page.
    var learnedLinksByOrigin: [LearnedOrigin: [(link: PageFacts.Link, key: String?)]] = [:]
    /// Pages read from HTML that are to be rendered, for the render workers:
    /// samples first, then the others in the order handed over (`queue`).
    var renderQueue: [RenderJob] = []
    /// Whether a page was handed to the render workers: each starts its view then.
    var renderingStarted = false
    struct RenderJob: Sendable {
        var entry: FrontierEntry
        var page: StaticPage
        var reason: PageLoadReport.RenderReason
    }
    /// Pages read while renders of their kind were under way, by kind: decided
    /// when a render of the kind is recorded, by the render worker that recorded it.
    var awaitingVerdict: [RenderSampler.Kind: [(entry: FrontierEntry, page: StaticPage, guardMark: GuardMark?)]] = [:]
    /// Read workers still running; render workers stop when none is and the queue is empty.
    var readWorkersRunning = 0
    /// Pages waiting to be rendered, per view, before read workers wait for room (and memory stays flat).
    static let renderQueuedPerView = 32

    /// The clicks made on the crawl's pages, with `routeClicks`: each is made once.
    let routeMemory = RouteMemory()
    /// How this run first reached each route it found in a page, by route
    /// URL, until the route's own report is stored (`PageLoadReport.route`).
    var routesReached: [String: PageLoadReport.RouteInfo] = [:]

    /// With `runs` above 1 and a shared store: the pages this worker stored
    /// in this run, which it repeats (the other workers repeat theirs).
    var loadedHere: Set<String> = []
    /// Hears the repeated loads done and in all (`navwatch crawl`'s progress line).
    var onRepeatProgress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// For tests: called on the WebKit thread once a page's load was asked for.
    var onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

    /// A crawler of `configuration` that keeps its frontier and reports in
    /// `store`. A store that holds a crawl already is resumed (or, for a
    /// shared store, joined as one more worker) with that crawl's settings.
    ///
    /// - Throws: `CrawlError` when an `include`, `exclude` or `ignore`
    ///   pattern is not a regular expression.
    public init(configuration: CrawlConfiguration, store: SQLiteCrawlStore) throws {
        try self.init(configuration: configuration, store: store as any CrawlStore)
    }

    package init(configuration: CrawlConfiguration, store: any CrawlStore) throws {
        self.configuration = configuration
        self.store = store
        seeds = configuration.seeds.compactMap { seed in
            URL(string: URLRemap.apply(configuration.remaps, to: seed.absoluteString)).flatMap(URLCanonicalizer.canonical)
        }
        links = try LinkClassifier(configuration, seeds: seeds)
    }

    /// Runs the crawl to the end: until the frontier is empty or `maxPages`
    /// pages were loaded. Cancelling the calling task ends it once the pages
    /// loading then are stored, and throws `CancellationError`: the store
    /// keeps every report stored, and running again resumes.
    ///
    /// Each report goes to `onReport` once, right after it was stored, and in
    /// the order reports were stored: the order `CrawlStore.allReports()`
    /// (and so `navwatch export`) gives them. With more than one view that is
    /// the order pages finished, not the order they started; breadth-first
    /// order is kept in when pages start. The summary returned counts the
    /// reports delivered in this run; it does not keep them.
    ///
    /// A crawl already in the store keeps its own settings (scope, filters,
    /// limits, delay, robots, retries): this run joins it as one more worker,
    /// or resumes it.
    public func run(onReport: @escaping ReportHandler) async throws -> CrawlSummary {
        self.onReport = onReport
        let started = clock.now
        let settings = try await store.start(with: CrawlSettings(configuration))
        configuration = settings.applied(to: configuration)
        if !store.isShared { try await store.releaseLeases() }
        _ = try await store.enqueue(seeds.map { FrontierEntry(url: $0.absoluteString, depth: 0, parent: nil) })
        seeds = try await store.seeds().compactMap(URL.init(string:))
        links = try LinkClassifier(configuration, seeds: seeds)
        // The guard and plain HTTP (robots.txt, sitemaps, links outside the
        // scope) last as long as the crawl runs.
        seedHosts = Set(seeds.compactMap(\.host))
        if !configuration.allowPrivateAddresses {
            let shared = try await SharedGuard.get()
            shared.allow(seedHosts)
            privateAddressGuard = shared
            configuration.webView.networkProxy = shared.proxyURL
        }
        let http = HTTPChecker(userAgent: configuration.webView.userAgent ?? configuration.robotsAgent,
                               timeout: configuration.timeout, ignoreTLSErrors: configuration.webView.tlsErrors == .ignore,
                               proxy: privateAddressGuard?.proxyURL)
        robots = RobotsCache(agent: configuration.robotsAgent, http: http)
        let crawled: Result<CrawlSummary, any Error>
        do { crawled = .success(try await crawl(http)) } catch { crawled = .failure(error) }
        await http.shutdown()
        privateAddressGuard?.disallow(seedHosts)
        for linkGuard in linkGuards { await linkGuard.shutdown() }
        linkGuards = []
        var summary = try crawled.get()
        summary.elapsed = clock.now - started
        return summary
    }

    private func crawl(_ http: HTTPChecker) async throws -> CrawlSummary {
        if let sitemap = configuration.sitemap {
            _ = try await store.enqueue(try await SitemapDiscovery.entries(sitemap, seeds: seeds, links: links, http: http))
        }
        let heartbeat = Task { await self.renewLeases() }  // while the workers run
        defer { heartbeat.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            switch configuration.render {
            case .always:
                for _ in 0..<max(1, configuration.concurrency) {
                    group.addTask { try await self.work(http) }
                }
            case .auto, .never:
                readWorkersRunning = max(1, configuration.readConcurrency)
                for _ in 0..<readWorkersRunning {
                    group.addTask {
                        try await self.read(http)
                        await self.readWorkerEnded()
                    }
                }
                if configuration.render == .auto {
                    for _ in 0..<max(1, configuration.concurrency) {
                        group.addTask { try await self.render(http) }
                    }
                }
            }
            // The first worker that fails ends the crawl: the others are cancelled
            // (`waitForAll` would wait for them, and read workers wait for its pages).
            while try await group.next() != nil {}
        }
        try Task.checkCancellation()
        if configuration.maxPages != nil {
            try await storeInOrder { [store] in try await store.skipQueued(reason: .maxPages) }
        }
        if configuration.render != .never {
            try await TextFragmentPass.run(store: store, configuration: configuration.webView, timeout: configuration.timeout)
        }
        if configuration.runs > 1, configuration.render != .never {
            try await RepeatedRuns.run(store: store, runs: configuration.runs, only: store.isShared ? loadedHere : nil,
                                       loaders: max(1, configuration.concurrency), openWindows: storesWhileLoading,
                                       timeout: configuration.timeout,
                                       progress: onRepeatProgress) { try await self.preparedLoader() }
        }
        return summary
    }

    /// The crawl as an asynchronous sequence of its reports: iterating it
    /// runs the crawl (as `run(onReport:)` does) and yields each report once,
    /// right after it was stored, in the order stored. The sequence ends when
    /// the crawl ends, and throws what the crawl throws.
    ///
    /// Reports the iteration has not taken yet wait in memory. Ending the
    /// iteration early (a `break`, or cancelling the iterating task) cancels
    /// the crawl as cancelling `run(onReport:)` does.
    public nonisolated func reports() -> AsyncThrowingStream<PageLoadReport, any Error> {
        AsyncThrowingStream { continuation in
            let crawl = Task {
                do {
                    _ = try await self.run { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in crawl.cancel() }
        }
    }

    func setLoadStartedHook(_ hook: (@WebKitActor @Sendable (URL, WebView) -> Void)?) {
        onLoadStarted = hook
    }

    /// Calls `hook` after each load of the rounds of `CrawlConfiguration.runs`
    /// with the loads done and the loads in all.
    package func setRepeatProgressHook(_ hook: @escaping @Sendable (_ done: Int, _ total: Int) -> Void) {
        onRepeatProgress = hook
    }
}
