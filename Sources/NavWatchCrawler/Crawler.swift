import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP
import WebKitThread

/// How a crawl runs. Every property has a default that works.
public struct CrawlConfiguration: Sendable {
    public var seeds: [URL]
    public var scope: CrawlScope = .sameOrigin
    /// Regular expressions; when any is given, a link must match one.
    public var include: [String] = []
    /// Regular expressions; a link that matches one is not followed.
    public var exclude: [String] = []
    public var maxDepth: Int?
    public var maxPages: Int?
    /// Views loading at once, each with its own web process.
    public var concurrency = 2
    public var timeout: Duration = .seconds(30)
    /// The pause between two requests to the same host.
    public var delay: Duration = .zero
    public var obeyRobots = true
    /// Whether links that leave the scope are checked with a plain HTTP
    /// request (HEAD, then GET where HEAD is refused) instead of skipped.
    /// They get a report with their status and `checked_with`; they are
    /// never loaded in a web view, and their links are not followed.
    public var checkExternal = false
    /// The pause between two checks of links on the same other site.
    public var externalDelay: Duration = .seconds(1)
    /// Where to find pages besides the links: a sitemap (or sitemap index,
    /// gzip too), or the `Sitemap:` lines of each seed's robots.txt.
    public var sitemap: SitemapSource?
    /// Extra attempts for transient failures (timeouts, resets, crashes, 5xx, 429).
    public var retries = 2
    /// The first retry waits this long, the next twice as long, and so on (plus jitter).
    public var backoff: Duration = .milliseconds(500)
    /// Pages a view loads before it is replaced by a fresh one.
    public var recycleAfter = 1000
    /// Where a PNG of each finished page's viewport goes; nil takes none.
    /// Each file is named from the page's URL (`PageLoadReport.screenshotName`)
    /// and the report names it.
    public var screenshotDirectory: URL?
    public var webView = WebViewConfiguration()
    /// The fast profile (`navwatch crawl --fast`), for crawls that want links
    /// and outcomes more than pixels: each page is loaded as served, without
    /// running its own scripts (links a script would add are not found) and
    /// without requesting its images, fonts, media, style sheets or scripts
    /// (`FastProfile`), in a small viewport. Reports then count only the
    /// requests made; screenshots are small and unstyled. About twice the
    /// pages per second on a real site (the README's performance section).
    public var fast = false
    /// Whether requests may reach loopback, private, link-local, CGNAT,
    /// unique-local and unspecified addresses of hosts other than the seeds'.
    /// Off (the default): every request of the crawl, the engine's (pages,
    /// redirects, subresources, `fetch`, WebSockets) and its own (robots.txt,
    /// sitemaps, external checks), goes through a `PrivateAddressGuard`,
    /// which checks the address a name resolves to when it connects; a
    /// page it refuses is reported `blocked`. The crawls of one process share
    /// one guard (started by the first, kept until the process ends), each
    /// allowing its seeds' hosts while it runs. A run's own choice: workers
    /// joining a shared crawl each make it.
    public var allowPrivateAddresses = false
    /// The product token matched against robots.txt groups.
    public var robotsAgent = "navwatch"
    /// This worker's name in the store: who holds a lease, who loaded a page.
    public var worker = CrawlConfiguration.defaultWorkerName
    /// How long a lease lasts without renewal. A running worker renews its
    /// leases three times per period; a dead worker's pages return to the
    /// frontier when it runs out.
    public var leaseDuration: Duration = .seconds(30)
    /// How often a worker waiting for other workers' pages asks the store
    /// again, when the store is shared.
    public var pollInterval: Duration = .milliseconds(250)

    /// `host-pid`: unique among live workers.
    public static var defaultWorkerName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    public init(seeds: [URL]) {
        self.seeds = seeds
    }
}

/// Where a crawl finds a sitemap.
public enum SitemapSource: Sendable, Equatable {
    /// This sitemap or sitemap index.
    case url(URL)
    /// The `Sitemap:` lines of each seed origin's robots.txt, else its `/sitemap.xml`.
    case auto
}

/// Why a crawl could not start.
public struct CrawlError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// Crawls breadth-first from the seeds with a pool of web views, storing
/// the frontier and one report per URL in a `CrawlStore` as it goes.
///
/// A web-process crash or a hung view never stops the crawl: the view is
/// replaced and the page retried or reported. Redirect targets count as seen,
/// so no page is reported twice. Running it again on the same store resumes.
public actor Crawler {
    public typealias ReportHandler = @Sendable (PageLoadReport) -> Void

    /// The caller's configuration, with the stored crawl's settings once running.
    private var configuration: CrawlConfiguration
    private let store: any CrawlStore
    private var include: [NSRegularExpression]
    private var exclude: [NSRegularExpression]
    /// The configured seeds and, on a resume, those of the stored crawl.
    private var seeds: [URL]
    /// One fetch per origin, shared by the workers that ask while it runs.
    private var robots: [String: Task<RobotsTxt, Never>] = [:]
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

    /// For tests: called on the WebKit thread once a page's load was asked for.
    private var onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

    public init(configuration: CrawlConfiguration, store: any CrawlStore) throws {
        self.configuration = configuration
        self.store = store
        include = try configuration.include.map { try NSRegularExpression(pattern: $0) }
        exclude = try configuration.exclude.map { try NSRegularExpression(pattern: $0) }
        seeds = configuration.seeds.compactMap(URLCanonicalizer.canonical)
    }

    /// Runs the crawl to the end: until the frontier is empty or `maxPages`
    /// pages were loaded.
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
        include = try configuration.include.map { try NSRegularExpression(pattern: $0) }
        exclude = try configuration.exclude.map { try NSRegularExpression(pattern: $0) }
        if !store.isShared { try await store.releaseLeases() }
        _ = try await store.enqueue(seeds.map { FrontierEntry(url: $0.absoluteString, depth: 0, parent: nil) })
        seeds = try await store.seeds().compactMap(URL.init(string:))
        if configuration.fast { configuration.webView = try await FastProfile.applied(to: configuration.webView) }
        // The guard and plain HTTP (robots.txt, sitemaps, links outside the
        // scope) last as long as the crawl runs.
        let seedHosts = Set(seeds.compactMap(\.host))
        if !configuration.allowPrivateAddresses {
            let shared = try await SharedGuard.get()
            shared.allow(seedHosts)
            privateAddressGuard = shared
            configuration.webView.networkProxy = shared.proxyURL
        }
        let http = HTTPChecker(userAgent: configuration.webView.userAgent ?? configuration.robotsAgent,
                               timeout: configuration.timeout, ignoreTLSErrors: configuration.webView.tlsErrors == .ignore,
                               proxy: privateAddressGuard?.proxyURL)
        let crawled: Result<CrawlSummary, any Error>
        do { crawled = .success(try await crawl(http)) } catch { crawled = .failure(error) }
        await http.shutdown()
        privateAddressGuard?.disallow(seedHosts)
        var summary = try crawled.get()
        summary.elapsed = clock.now - started
        return summary
    }

    private func crawl(_ http: HTTPChecker) async throws -> CrawlSummary {
        if let sitemap = configuration.sitemap {
            _ = try await store.enqueue(try await sitemapEntries(sitemap, http))
        }
        let heartbeat = Task { await self.renewLeases() }  // while the workers run
        defer { heartbeat.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, configuration.concurrency) {
                group.addTask { try await self.work(http) }
            }
            try await group.waitForAll()
        }
        if configuration.maxPages != nil {
            try await storeInOrder { [store] in try await store.skipQueued(reason: .maxPages) }
        }
        return summary
    }

    func setLoadStartedHook(_ hook: (@WebKitActor @Sendable (URL, WebView) -> Void)?) {
        onLoadStarted = hook
    }

    // MARK: Workers

    private func work(_ http: HTTPChecker) async throws {
        let loader = await PageLoader(configuration: configuration.webView, recycleAfter: configuration.recycleAfter,
                                      screenshotDirectory: configuration.screenshotDirectory,
                                      privateAddressGuard: privateAddressGuard, onLoadStarted: onLoadStarted)
        // Ready before the first lease, so a page taken in breadth-first
        // order also starts in that order.
        try await Task { @WebKitActor in _ = try await loader.prepare() }.value
        let timeout = configuration.timeout
        var current = try await next(http)
        var storingPrevious: Task<Void, any Error>?
        while let entry = current {
            // A pipeline: the next page is leased while this one loads, and
            // this one's report is stored while the next one loads.
            async let upcoming = next(http)
            let result = entry.kind == .external
                ? await check(entry, http)
                : try await Task { @WebKitActor in try await loader.load(entry, timeout: timeout) }.value
            try await storingPrevious?.value
            storingPrevious = Task { try await self.finish(entry, result) }
            current = try await upcoming
        }
        try await storingPrevious?.value
        await Task { @WebKitActor in loader.close() }.value
    }

    /// The next entry to load, leased; nil when the crawl is over.
    private func next(_ http: HTTPChecker) async throws -> FrontierEntry? {
        while true {
            let changesSeen = changes
            let now = Date()
            let request = LeaseRequest(worker: configuration.worker, now: now,
                                       until: now.addingTimeInterval(configuration.leaseDuration.seconds),
                                       hostDelay: configuration.delay.seconds,
                                       externalHostDelay: configuration.externalDelay.seconds,
                                       maxPages: configuration.maxPages)
            switch try await store.lease(request) {
            case .finished:
                return nil
            case .wait(let until):
                if changes != changesSeen { continue }  // a page finished meanwhile: ask again
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
                if configuration.obeyRobots, let url = URL(string: entry.url), await !robotsAllow(url, http) {
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
        if isTransient(result.report), entry.attempts <= configuration.retries {
            summary.retries += 1
            let delay = retryDelay(attempt: entry.attempts, retryAfter: result.retryAfter)
            try await store.retry(entry, notBefore: Date().addingTimeInterval(delay))
            return
        }
        let (discovered, skipped, links) = classifyLinks(result.links, from: entry,
                                                         shownAt: result.report.finalURL ?? entry.url)
        var report = result.report
        report.links = result.links.count
        let (worker, aliases) = (configuration.worker, result.aliases)
        try await storeInOrder { [store, entry, report] in
            try await store.complete(entry, worker: worker, report: report, aliases: aliases,
                                     discovered: discovered, skipped: skipped, links: links)
        }
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
        report.record(check)
        if let privateAddressGuard {
            // The check stops at the hop the guard answered: the last one asked for.
            let asked = check.finalURL
            report.applyGuard(privateAddressGuard.verdict(for: asked, since: guardMark), at: asked, viaTunnel: true)
        }
        return PageResult(report: report, retryAfter: check.retryAfter)
    }

    /// Runs `write` once every earlier write has ended, then delivers the
    /// reports it stored: delivery order is store order.
    private func storeInOrder(_ write: @escaping @Sendable () async throws -> [PageLoadReport]) async throws {
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

    private func deliver(_ reports: [PageLoadReport]) {
        for report in reports {
            summary.add(report)
            onReport(report)
        }
    }

    // MARK: Policy

    private func isTransient(_ report: PageLoadReport) -> Bool {
        switch report.outcome {
        case .timeout, .crashed: return true
        case .failed:
            // A cancellation navwatch did not ask for (WebKit's own) is never a
            // page's outcome: the page is loaded again.
            return [NavigationError.Kind.connectionReset.rawValue, NavigationError.Kind.cancelled.rawValue]
                .contains(report.error?.kind)
        case .httpError: return (report.status ?? 0) >= 500 || report.status == 429
        default: return false
        }
    }

    /// Exponential backoff with up to 50 % jitter, or the server's
    /// `Retry-After` when it asked for longer (capped at five minutes).
    private func retryDelay(attempt: Int, retryAfter: Double?) -> Double {
        let exponential = configuration.backoff.seconds * pow(2, Double(max(0, attempt - 1)))
        let jittered = exponential * (1 + Double.random(in: 0..<0.5))
        return min(300, max(jittered, retryAfter ?? 0))
    }

    /// Splits a page's links into entries to crawl or check, reports of links
    /// skipped, and the page's part of the link graph, whose links are on the
    /// page at `shownAt` (where a redirect led).
    private func classifyLinks(_ links: [PageFacts.Link], from entry: FrontierEntry, shownAt: String)
        -> (discovered: [FrontierEntry], skipped: [PageLoadReport], graph: [PageLink]) {
        var discovered: [FrontierEntry] = [], skipped: [PageLoadReport] = [], graph: [PageLink] = []
        var seen: Set<String> = [], inGraph: Set<PageLink> = []
        for link in links {
            guard let url = URL(string: link.url), let scheme = url.scheme?.lowercased() else { continue }
            // Not documents: nothing to load or report.
            if ["mailto", "javascript", "tel", "data", "blob", "about"].contains(scheme) { continue }
            guard let canonical = URLCanonicalizer.canonical(url) else { continue }
            let pageLink = PageLink(source: shownAt, target: canonical.absoluteString, href: link.href,
                                    fragment: url.fragment?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 },
                                    text: link.text, rel: link.rel.isEmpty ? nil : link.rel, element: link.element)
            if inGraph.insert(pageLink).inserted { graph.append(pageLink) }
            guard seen.insert(canonical.absoluteString).inserted, canonical.absoluteString != entry.url else { continue }
            let child = FrontierEntry(url: canonical.absoluteString, depth: entry.depth + 1, parent: entry.url)
            let tooDeep = configuration.maxDepth.map { child.depth > $0 } ?? false
            if scheme != "http" && scheme != "https" {
                skipped.append(.skipped(child, .nonHTTP))
            } else if !isInScope(canonical) {
                if configuration.checkExternal && !tooDeep {
                    discovered.append(FrontierEntry(url: child.url, depth: child.depth, parent: child.parent, kind: .external))
                } else {
                    skipped.append(.skipped(child, .scope))
                }
            } else if tooDeep {
                skipped.append(.skipped(child, .maxDepth))
            } else {
                discovered.append(child)
            }
        }
        return (discovered, skipped, graph)
    }

    /// The pages of the configured sitemap that are in scope, as entries at
    /// depth 0 (no link leads to them).
    private func sitemapEntries(_ source: SitemapSource, _ http: HTTPChecker) async throws -> [FrontierEntry] {
        var sitemaps: [URL] = []
        switch source {
        case .url(let url):
            sitemaps = [url]
        case .auto:
            for origin in Set(seeds.compactMap(URLCanonicalizer.origin)).sorted() {
                guard let base = URL(string: origin) else { continue }
                let robots = await http.fetch(base.appendingPathComponent("robots.txt"), maxBytes: 1 << 20)
                let listed = robots.status == 200
                    ? Sitemap.sitemapURLs(inRobotsTxt: String(decoding: robots.body, as: UTF8.self), base: base) : []
                sitemaps += listed.isEmpty ? [base.appendingPathComponent("sitemap.xml")] : listed
            }
        }
        var entries: [FrontierEntry] = []
        for sitemap in sitemaps {
            let pages: [URL]
            do {
                pages = try await Sitemap.pages(at: sitemap, using: http)
            } catch {
                // A sitemap named on the command line must be readable; one that
                // `auto` only guessed may be missing.
                if source == .auto { continue }
                throw CrawlError(description: "\(error)")
            }
            for page in pages {
                guard let canonical = URLCanonicalizer.canonical(page), ["http", "https"].contains(canonical.scheme ?? ""),
                      isInScope(canonical) else { continue }
                entries.append(FrontierEntry(url: canonical.absoluteString, depth: 0, parent: nil, kind: .sitemapPage))
            }
        }
        return entries
    }


    /// Whether the crawl loads `url`: inside its scope and through `--include`/`--exclude`.
    private func isInScope(_ url: URL) -> Bool {
        configuration.scope.contains(url, seeds: seeds) && matchesFilters(url)
    }

    private func matchesFilters(_ url: URL) -> Bool {
        let text = url.absoluteString
        let range = NSRange(text.startIndex..., in: text)
        if !include.isEmpty, !include.contains(where: { $0.firstMatch(in: text, range: range) != nil }) { return false }
        return !exclude.contains { $0.firstMatch(in: text, range: range) != nil }
    }

    // MARK: robots.txt

    private func robotsAllow(_ url: URL, _ http: HTTPChecker) async -> Bool {
        guard let origin = URLCanonicalizer.origin(of: url) else { return true }
        let agent = configuration.robotsAgent
        let fetch = robots[origin] ?? Task { await Self.fetchRobots(origin: origin, agent: agent, http: http) }
        robots[origin] = fetch
        return await fetch.value.allows(url)
    }

    /// Fetched once per origin; a missing or unreadable robots.txt allows everything.
    private static func fetchRobots(origin: String, agent: String, http: HTTPChecker) async -> RobotsTxt {
        guard let url = URL(string: origin + "/robots.txt") else { return .allowAll }
        let answer = await http.fetch(url, maxBytes: 1 << 20)
        guard answer.status == 200 else { return .allowAll }
        return RobotsTxt(String(decoding: answer.body, as: UTF8.self), userAgent: agent)
    }
}
