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
    /// Called with each report right after it was stored.
    public typealias ReportHandler = @Sendable (PageLoadReport) -> Void

    /// The caller's configuration, with the stored crawl's settings once running.
    private var configuration: CrawlConfiguration
    private let store: any CrawlStore
    /// Sorts each page's links; made anew when the stored settings apply.
    private var links: LinkClassifier
    /// The configured seeds and, on a resume, those of the stored crawl.
    private var seeds: [URL]
    /// robots.txt by origin, while the crawl runs.
    private var robots: RobotsCache?
    /// The URLs this crawler holds leases on; renewed until completed or put back.
    private var leased: Set<String> = []
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Counts the pages finished, so that a wait never misses one that
    /// finished while the store was being asked.
    private var changes = 0
    private var summary = CrawlSummary()
    private var onReport: ReportHandler = { _ in }
    /// The last write of reports to the store; each waits for the one before,
    /// so reports are delivered in the order they were stored.
    private var storing: Task<Void, any Error>?
    private let clock = ContinuousClock()
    /// While a crawl without `allowPrivateAddresses` runs: the proxy all its
    /// requests go through (`SharedGuard`), allowing the seeds' hosts.
    private var privateAddressGuard: PrivateAddressGuard?
    /// With a `network`: the guard of each loader, which shapes its link; shut when the crawl ends.
    private var linkGuards: [PrivateAddressGuard] = []
    /// The seeds' hosts, which the crawl's guards let through.
    private var seedHosts: Set<String> = []

    /// The URLs this run already offered to the store's frontier (found on
    /// a page, followed or skipped), up to `rememberedOffers`: the store
    /// keeps the first offer of a URL and ignores the rest, so those are not
    /// sent again.
    private var offered: Set<String> = []
    static let rememberedOffers = 50_000

    /// The links of pages whose load ended and whose report is not stored
    /// yet (their late window is open), by page URL: stored with the report.
    /// A worker that finds nothing to lease offers their `discovered`
    /// entries to the frontier at once (`offerWaitingLinks()`).
    private var waitingLinks: [String: SortedLinks] = [:]
    private struct SortedLinks {
        var discovered: [FrontierEntry]
        var skipped: SkippedLinks
        var links: [PageLink]
    }

    /// With `RenderMode.auto`: which pages to render, from what renders of their kind showed.
    private var sampler = RenderSampler()
    /// Pages read from HTML that are to be rendered, for the render workers, in the order handed over.
    private var renderQueue: [RenderJob] = []
    private struct RenderJob: Sendable {
        var entry: FrontierEntry
        var page: StaticPage
        var reason: PageLoadReport.RenderReason
    }
    /// Pages read while renders of their kind were under way, by kind: decided
    /// when a render of the kind is recorded, by the render worker that recorded it.
    private var awaitingVerdict: [RenderSampler.Kind: [(entry: FrontierEntry, page: StaticPage, guardMark: GuardMark?)]] = [:]
    /// Read workers still running; render workers stop when none is and the queue is empty.
    private var readWorkersRunning = 0
    /// Pages waiting to be rendered, per view, before read workers wait for room (and memory stays flat).
    static let renderQueuedPerView = 32

    /// The clicks made on the crawl's pages, with `routeClicks`: each is made once.
    private let routeMemory = RouteMemory()
    /// How this run first reached each route it found in a page, by route
    /// URL, until the route's own report is stored (`PageLoadReport.route`).
    private var routesReached: [String: PageLoadReport.RouteInfo] = [:]

    /// With `runs` above 1 and a shared store: the pages this worker stored
    /// in this run, which it repeats (the other workers repeat theirs).
    private var loadedHere: Set<String> = []
    /// Hears the repeated loads done and in all (`navwatch crawl`'s progress line).
    private var onRepeatProgress: @Sendable (Int, Int) -> Void = { _, _ in }

    /// For tests: called on the WebKit thread once a page's load was asked for.
    private var onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

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
            try await group.waitForAll()
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

    // MARK: Workers

    /// A worker of `RenderMode.always`: leases pages and renders each in its view.
    private func work(_ http: HTTPChecker) async throws {
        // Ready before the first lease, so a page taken in breadth-first
        // order also starts in that order.
        let loader = try await preparedLoader()
        let timeout = configuration.timeout
        var current = try await next(http)
        var storing = PendingStores(limit: storesWhileLoading)
        while let entry = current, !Task.isCancelled {
            // A pipeline: the next page is leased while this one loads, and
            // this one's report is stored while the next ones load.
            async let upcoming = next(http)
            let result = entry.kind == .external
                ? await check(entry, http)
                : await confirmingRedirects(try await Task { @WebKitActor in try await loader.load(entry, timeout: timeout) }.value,
                                            of: entry, http)
            // While the next pages load: its links are sorted (and offered to a
            // waiting worker), then it is stored once its late window has closed.
            try await storing.add(Task { try await self.complete(entry, result) })
            current = try await upcoming
        }
        try await storing.drain()
        await Task { @WebKitActor in loader.close() }.value
    }

    /// How many rendered pages a worker keeps waiting for their late windows
    /// while it loads the next: as many as its loader has views; none over a
    /// network profile, where a page has the loader's link to itself.
    private var storesWhileLoading: Int {
        configuration.network == nil ? PageLoader.views(concurrency: configuration.concurrency) : 0
    }

    /// A page loader of the crawl's views, its view ready.
    private func preparedLoader() async throws -> PageLoader {
        var webView = configuration.webView
        var loaderGuard = privateAddressGuard
        if let network = configuration.network {
            // The loader's views share a link of their own, as one phone's pages do.
            let linkGuard = try await PrivateAddressGuard.start(allowedHosts: seedHosts, link: network.linkShape,
                                                                blocksPrivateAddresses: !configuration.allowPrivateAddresses)
            linkGuards.append(linkGuard)
            loaderGuard = linkGuard
            webView.networkProxy = linkGuard.proxyURL
        }
        if configuration.runs > 1 { webView.memoryCache = false }
        let loader = await PageLoader(configuration: webView, recycleAfter: configuration.recycleAfter,
                                      settle: configuration.settle, screenshotDirectory: configuration.screenshotDirectory,
                                      privateAddressGuard: loaderGuard, network: configuration.network,
                                      pageHandler: configuration.pageHandler,
                                      handlerTimeout: configuration.pageHandlerTimeout,
                                      views: PageLoader.views(concurrency: configuration.concurrency),
                                      routes: configuration.routeClicks.map { (routeMemory, $0) },
                                      onLoadStarted: onLoadStarted)
        try await Task { @WebKitActor in _ = try await loader.prepare() }.value
        return loader
    }

    /// While the next page loads: the page's links are sorted (and offered to
    /// a waiting worker), then it is stored once its late window has closed.
    private func complete(_ entry: FrontierEntry, _ result: PageResult) async throws {
        if HostPacing.isPushBack(result.report.status) {
            // The host is slowed down for every worker at once, before the next lease.
            try await store.pushBack(host: entry.host, retryAfter: result.retryAfter, at: Date())
        }
        sortLinks(of: entry, result)
        try await finish(entry, await result.completed())
    }

    // MARK: Reading pages from HTML (RenderMode.auto and .never)

    /// A read worker: leases pages, fetches and parses each, and reports it
    /// from its HTML or hands it to the render workers (`RenderSampler`).
    private func read(_ http: HTTPChecker) async throws {
        var current = try await next(http)
        var storing = PendingStores(limit: 1)
        while let entry = current, !Task.isCancelled {
            async let upcoming = next(http)  // leased while this one is read
            let result = entry.kind == .external ? await check(entry, http) : await read(entry, http)
            if let result {
                try await storing.add(Task { try await self.complete(entry, result) })
            }
            current = try await upcoming
        }
        try await storing.drain()
    }

    private func readWorkerEnded() {
        readWorkersRunning -= 1
        wakeAll()
    }

    /// The page `entry` read from its HTML; nil when it was handed to the render workers instead.
    private func read(_ entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult? {
        guard let url = URL(string: entry.url) else { return PageResult(report: .skipped(entry, .nonHTTP)) }
        let guardMark = privateAddressGuard?.mark
        let page = await StaticPage.fetch(url, http: http)
        var reason = PageLoadReport.RenderReason.never
        if configuration.render == .auto {
            if let mustRender = page.mustRender {
                await handOver(RenderJob(entry: entry, page: page, reason: mustRender))
                return nil
            }
            guard page.html != nil else { return readResult(entry, page, .notHTML, guardMark: guardMark) }
            switch sampler.decide(page.kind, url: entry.url) {
            case .readHTML(let why):
                reason = why
            case .render(let why):
                await handOver(RenderJob(entry: entry, page: page, reason: why))
                return nil
            case .wait:
                // Decided when a render of its kind is recorded; this worker reads on meanwhile.
                awaitingVerdict[page.kind, default: []].append((entry, page, guardMark))
                return nil
            }
        }
        return readResult(entry, page, reason, guardMark: guardMark)
    }

    /// Decides again the pages of `kind` read while its renders were under
    /// way: those to render are queued, and those read from HTML are returned, for the caller to store.
    private func decideAwaiting(_ kind: RenderSampler.Kind) -> [(FrontierEntry, PageResult)] {
        guard let waiting = awaitingVerdict.removeValue(forKey: kind) else { return [] }
        var read: [(FrontierEntry, PageResult)] = []
        for (entry, page, guardMark) in waiting {
            switch sampler.decide(kind, url: entry.url) {
            case .readHTML(let reason): read.append((entry, readResult(entry, page, reason, guardMark: guardMark)))
            case .render(let reason): renderQueue.append(RenderJob(entry: entry, page: page, reason: reason))
            case .wait: awaitingVerdict[kind, default: []].append((entry, page, guardMark))
            }
        }
        return read
    }

    /// The result of `page` read from its HTML.
    private func readResult(_ entry: FrontierEntry, _ page: StaticPage, _ reason: PageLoadReport.RenderReason,
                            guardMark: GuardMark?) -> PageResult {
        var report = PageLoadReport(entry, outcome: .failed)
        report.startedAt = page.startedAt
        report.attempts = entry.attempts + 1
        report.record(page, reason: reason, addedIDs: reason == .sampleAgreed ? sampler.idsAdded(by: page.kind) : [],
                      guardVerdict: privateAddressGuard?.verdict(for: page.document.finalURL, since: guardMark))
        report.fetchedAt = Date()
        var result = PageResult(report: report, retryAfter: page.document.retryAfter)
        result.links = report.wasLoaded ? page.links : []
        result.aliases = result.report.aliases
        return result
    }

    /// Queues `job` for the render workers, once the queue has room.
    private func handOver(_ job: RenderJob) async {
        while renderQueue.count >= Self.renderQueuedPerView * max(1, configuration.concurrency), !Task.isCancelled {
            await waitForChange(until: clock.now + .seconds(1))
        }
        renderQueue.append(job)
        wakeAll()
    }

    /// A render worker: renders the pages the read workers hand over, in its view.
    private func render(_ http: HTTPChecker) async throws {
        let loader = try await preparedLoader()
        let timeout = configuration.timeout
        var storing = PendingStores(limit: storesWhileLoading)
        // The pages of a kind this worker's renders decided, stored apart from the
        // rendered ones, which wait for their late windows.
        var storingDecided: Task<Void, any Error>?
        while let job = await nextRenderJob() {
            let entry = job.entry
            var result = await confirmingRedirects(try await Task { @WebKitActor in try await loader.load(entry, timeout: timeout) }.value,
                                                   of: entry, http)
            compare(job, result)
            result.renderReason = job.reason
            let decided = decideAwaiting(job.page.kind)
            if !decided.isEmpty {
                storingDecided = Task { [storingDecided] in
                    try await storingDecided?.value
                    for (entry, result) in decided { try await self.complete(entry, result) }
                }
            }
            try await storing.add(Task { [result] in try await self.complete(entry, result) })
        }
        try await storing.drain()
        try await storingDecided?.value
        await Task { @WebKitActor in loader.close() }.value
    }

    /// The next page to render; nil once no read worker runs and none is left.
    private func nextRenderJob() async -> RenderJob? {
        while !Task.isCancelled {
            if !renderQueue.isEmpty {
                defer { wakeAll() }  // a read worker waiting for room
                return renderQueue.removeFirst()
            }
            if readWorkersRunning == 0 { return nil }
            await waitForChange(until: clock.now + .seconds(1))
        }
        return nil
    }

    /// Tells the sampler what rendering a page of a sampled kind showed, against its HTML.
    private func compare(_ job: RenderJob, _ result: PageResult) {
        let kind = job.page.kind
        guard let html = job.page.html, result.report.metrics != nil else {
            sampler.abandon(kind, reason: job.reason)  // no page to compare: a failure, a crash
            return
        }
        let comparison = RenderComparison(
            html: (linkKeys(job.page.links, of: job.entry), Set(html.anchors), html.title),
            rendered: (linkKeys(result.links, of: job.entry), Set(result.report.anchors), result.report.title))
        sampler.record(kind, reason: job.reason, comparison)
    }

    /// Where `links` lead, as the link graph has them: `target#fragment`.
    private func linkKeys(_ pageLinks: [PageFacts.Link], of entry: FrontierEntry) -> RenderComparison.LinkKeys {
        Set(links.classify(pageLinks, from: entry, shownAt: entry.url).graph.map { $0.target + "#" + ($0.fragment ?? "") })
    }

    /// The next entry to load, leased; nil when the crawl is over.
    private func next(_ http: HTTPChecker) async throws -> FrontierEntry? {
        while !Task.isCancelled {
            let changesSeen = changes
            let now = Date()
            let request = LeaseRequest(worker: configuration.worker, now: now,
                                       until: now.addingTimeInterval(configuration.leaseDuration.seconds),
                                       hostDelay: configuration.delay.seconds,
                                       externalHostDelay: configuration.externalDelay.seconds,
                                       maxPages: configuration.maxPages, hostConcurrency: configuration.hostConcurrency)
            switch try await store.lease(request) {
            case .finished:
                return nil
            case .wait(let until):
                if changes != changesSeen { continue }  // a page finished meanwhile: ask again
                if try await offerWaitingLinks() { continue }
                // Local pages wake us when they finish; other workers' do
                // not, so a shared store is asked again every poll interval.
                let poll = store.isShared ? configuration.pollInterval : .seconds(1)
                var deadline = clock.now + poll
                if let until {
                    deadline = min(deadline, clock.now + .milliseconds(Int64(max(0, until.timeIntervalSinceNow) * 1000) + 1))
                }
                await waitForChange(until: deadline)
            case .leased(let entry):
                leased.insert(entry.url)
                if configuration.obeyRobots, let url = URL(string: entry.url), let robots, await !robots.allows(url) {
                    let worker = configuration.worker
                    try await storeInOrder { [store] in
                        try await store.complete(entry, worker: worker, report: .skipped(entry, .robots),
                                                 aliases: [], discovered: [], skipped: [], links: [])
                    }
                    leased.remove(entry.url)
                    continue
                }
                return entry
            }
        }
        return nil
    }

    /// Keeps this crawler's leases alive while it runs.
    private func renewLeases() async {
        let period = configuration.leaseDuration / 3
        while (try? await Task.sleep(for: period)) != nil {
            let until = Date().addingTimeInterval(configuration.leaseDuration.seconds)
            try? await store.renewLeases(Array(leased), worker: configuration.worker, until: until)
        }
    }

    /// Waits until a page finishes or `deadline` passes.
    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { continuation in
            waiters.append(continuation)
            Task { [clock] in
                try? await Task.sleep(until: deadline, clock: clock)
                self.wakeAll()
            }
        }
    }

    private func wakeAll() {
        let current = waiters
        waiters.removeAll()
        for waiter in current { waiter.resume() }
    }

    private func finish(_ entry: FrontierEntry, _ result: PageResult) async throws {
        defer {
            leased.remove(entry.url)
            changes += 1
            wakeAll()
        }
        var entry = entry
        entry.attempts = result.report.attempts
        // `sortLinks` kept the links of every page that is not retried.
        guard let sorted = waitingLinks.removeValue(forKey: entry.url) else {
            summary.retries += 1
            let delay = retryPolicy.delay(attempt: entry.attempts, retryAfter: result.retryAfter)
            try await store.retry(entry, notBefore: Date().addingTimeInterval(delay))
            return
        }
        var report = result.report
        report.links = result.links.count
        if configuration.runs > 1, store.isShared { loadedHere.insert(entry.url) }
        report.route = routesReached.removeValue(forKey: entry.url)
        let (worker, aliases) = (configuration.worker, result.aliases)
        try await storeInOrder { [store, entry, report] in
            try await store.complete(entry, worker: worker, report: report, aliases: aliases,
                                     discovered: sorted.discovered, skipped: sorted.skipped, links: sorted.links)
        }
    }

    private var retryPolicy: RetryPolicy {
        RetryPolicy(retries: configuration.retries, backoff: configuration.backoff)
    }

    /// Sorts the links of a page whose load ended, unless it will be retried,
    /// and keeps them until its report is stored (`finish`).
    private func sortLinks(of entry: FrontierEntry, _ result: PageResult) {
        guard !retryPolicy.retries(result.report) else { return }
        let found: [FrontierEntry], links: [PageLink]
        var skipped: SkippedLinks
        (found, skipped, links) = self.links.classify(result.links, from: entry, shownAt: result.report.finalURL ?? entry.url)
        var discovered = found.filter { offer($0.url) }
        skipped.retain { offer($0) }
        if let recentChecks = configuration.recentChecks {
            // A link answered lately is reported from that answer, not checked again.
            let now = Date()
            var answered: [PageLoadReport] = []
            discovered.removeAll { entry in
                guard entry.kind == .external, let report = recentChecks.report(for: entry, now: now) else { return false }
                answered.append(report)
                return true
            }
            skipped.append(answered: answered)
        }
        let loading = Set(discovered.map(\.url))
        for link in links where link.reached != nil && routesReached[link.target] == nil && loading.contains(link.target) {
            routesReached[link.target] = PageLoadReport.RouteInfo(link)
        }
        let sorted = SortedLinks(discovered: discovered, skipped: skipped, links: links)
        waitingLinks[entry.url] = sorted
        if !sorted.discovered.isEmpty { wakeAll() }  // a waiting worker may offer them now
    }

    /// Adds the links found on pages whose reports wait for their late window
    /// to the frontier now, so that a worker with nothing to load need not
    /// wait for the window; their reports are stored later without them.
    /// Returns whether there were any.
    private func offerWaitingLinks() async throws -> Bool {
        var entries: [FrontierEntry] = []
        for url in waitingLinks.keys where !waitingLinks[url]!.discovered.isEmpty {
            entries += waitingLinks[url]!.discovered
            waitingLinks[url]!.discovered = []
        }
        guard !entries.isEmpty else { return false }
        // Written even when the crawl is being cancelled: the pages' own
        // reports no longer carry these links, so a dropped write loses them.
        try await Task {
            try await self.storeInOrder { [store, entries] in
                _ = try await store.enqueue(entries)
                return CompletionReports()
            }
        }.value
        return true
    }

    /// Whether `url` is offered to the frontier for the first time in this run.
    private func offer(_ url: String) -> Bool {
        if offered.count >= Self.rememberedOffers { offered.removeAll(keepingCapacity: true) }
        return offered.insert(url).inserted
    }

    /// `result`, or for a rendered page that failed before any answer (a
    /// crash, a failure with no status) and that the HTTP client finds
    /// redirecting to a scheme other than http and https, that page
    /// `blocked` as the HTML path reports it. WebKit follows such a redirect
    /// in its network process, where no signal reaches navwatch first, and
    /// its web process then fails or crashes; the one request more is made
    /// only after such a failure.
    private func confirmingRedirects(_ result: PageResult, of entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult {
        guard [.crashed, .failed].contains(result.report.outcome),
              result.report.status.map(HTTPChecker.redirectStatuses.contains) ?? true,
              let url = URL(string: entry.url) else { return result }
        let check = await http.check(url)
        guard check.errorKind == .policy, let target = check.finalURL.scheme?.lowercased(),
              !HTTPChecker.schemes.contains(target) else {
            return result
        }
        var confirmed = PageResult(report: PageLoadReport(entry, outcome: .blocked))
        confirmed.report.startedAt = result.report.startedAt
        confirmed.report.attempts = result.report.attempts
        confirmed.report.rendered = result.report.rendered
        confirmed.report.record(check)
        confirmed.report.checkedWith = nil  // a page of the crawl, not a checked link
        confirmed.renderReason = result.renderReason
        return confirmed
    }

    /// Checks a link outside the scope with plain HTTP.
    private func check(_ entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult {
        let startedAt = Date()
        guard let url = URL(string: entry.url) else {
            return PageResult(report: .skipped(entry, .nonHTTP))
        }
        let guardMark = privateAddressGuard?.mark
        let check = await http.check(url)
        var report = PageLoadReport(entry, outcome: .ok)
        report.startedAt = startedAt
        report.attempts = entry.attempts + 1
        report.record(check, guardVerdict: privateAddressGuard?.verdict(for: check.finalURL, since: guardMark))
        return PageResult(report: report, retryAfter: check.retryAfter)
    }

    /// Runs `write` once every earlier write has ended, then delivers the
    /// reports it stored: delivery order is store order.
    private func storeInOrder(_ write: @escaping @Sendable () async throws -> some Sequence<PageLoadReport> & Sendable) async throws {
        let previous = storing
        let current = Task {
            _ = await previous?.result  // an earlier write's failure is its own caller's to report
            deliver(try await write())
        }
        storing = current
        try await withTaskCancellationHandler {
            try await current.value
        } onCancel: {
            current.cancel()
        }
    }

    private func deliver(_ reports: some Sequence<PageLoadReport>) {
        for report in reports {
            summary.add(report)
            onReport(report)
        }
    }
}
