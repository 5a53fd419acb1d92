import Foundation
import NavWatch
import WebKitThread
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    /// Extra attempts for transient failures (timeouts, resets, crashes, 5xx, 429).
    public var retries = 2
    /// The first retry waits this long, the next twice as long, and so on (plus jitter).
    public var backoff: Duration = .milliseconds(500)
    /// Pages a view loads before it is replaced by a fresh one.
    public var recycleAfter = 100
    public var webView = WebViewConfiguration()
    /// The product token matched against robots.txt groups.
    public var robotsAgent = "navwatch"

    public init(seeds: [URL]) {
        self.seeds = seeds
    }
}

/// What the crawl did, for its closing summary.
public struct CrawlSummary: Sendable {
    public var reports: [PageLoadReport] = []
    public var retries = 0
    public var elapsed: Duration = .zero
}

/// Crawls breadth-first from the seeds with a pool of web views, storing
/// the frontier and one report per URL in a `CrawlStore` as it goes.
///
/// A web-process crash or a hung view never stops the crawl: the view is
/// replaced and the page retried or reported. Redirect targets count as seen,
/// so no page is reported twice. Running it again on the same store resumes.
public actor Crawler {
    public typealias ReportHandler = @Sendable (PageLoadReport) -> Void

    private let configuration: CrawlConfiguration
    private let store: any CrawlStore
    private let include: [NSRegularExpression]
    private let exclude: [NSRegularExpression]
    /// The configured seeds and, on a resume, those of the stored crawl.
    private var seeds: [URL]
    /// One fetch per origin, shared by the workers that ask while it runs.
    private var robots: [String: Task<RobotsTxt, Never>] = [:]
    private var hostReadyAt: [String: ContinuousClock.Instant] = [:]
    private var inFlight = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var summary = CrawlSummary()
    private var onReport: ReportHandler = { _ in }
    private let clock = ContinuousClock()

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
    /// pages were loaded. Reports go to `onReport` as they are stored.
    public func run(onReport: @escaping ReportHandler) async throws -> CrawlSummary {
        self.onReport = onReport
        let started = clock.now
        try await store.releaseLeases()
        _ = try await store.enqueue(seeds.map { FrontierEntry(url: $0.absoluteString, depth: 0, parent: nil) })
        seeds = try await store.seeds().compactMap(URL.init(string:))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, configuration.concurrency) {
                group.addTask { try await self.work() }
            }
            try await group.waitForAll()
        }
        if configuration.maxPages != nil {
            deliver(try await store.skipQueued(reason: .maxPages))
        }
        summary.elapsed = clock.now - started
        return summary
    }

    func setLoadStartedHook(_ hook: (@WebKitActor @Sendable (URL, WebView) -> Void)?) {
        onLoadStarted = hook
    }

    // MARK: Workers

    private func work() async throws {
        let loader = await PageLoader(configuration: configuration.webView, recycleAfter: configuration.recycleAfter,
                                      onLoadStarted: onLoadStarted)
        // Ready before the first lease, so a page taken in breadth-first
        // order also starts in that order.
        try await Task { @WebKitActor in _ = try await loader.prepare() }.value
        while let entry = try await next() {
            let timeout = configuration.timeout
            let result = try await Task { @WebKitActor in try await loader.load(entry, timeout: timeout) }.value
            try await finish(entry, result)
        }
        await Task { @WebKitActor in loader.close() }.value
    }

    /// The next entry to load, leased; nil when the crawl is over.
    private func next() async throws -> FrontierEntry? {
        while true {
            if let maxPages = configuration.maxPages, try await store.loadedCount() + inFlight >= maxPages {
                if inFlight == 0 { return nil }
                await waitForChange(until: nil)  // a retry may still give a page back
                continue
            }
            let now = clock.now
            var wake: ContinuousClock.Instant?
            for entry in try await store.ready(limit: 64, now: Date()) {
                guard let url = URL(string: entry.url), let host = url.host else { continue }
                if let ready = hostReadyAt[host], ready > now {
                    wake = min(wake ?? ready, ready)
                    continue
                }
                if configuration.obeyRobots, await !robotsAllow(url) {
                    guard try await store.lease(entry) else { continue }
                    deliver(try await store.complete(entry, report: .skipped(entry, .robots), aliases: [],
                                                     discovered: [], skipped: []))
                    continue
                }
                guard try await store.lease(entry) else { continue }
                inFlight += 1
                hostReadyAt[host] = clock.now + configuration.delay
                return entry
            }
            if let readyTime = try await store.nextReadyTime(), readyTime > Date() {
                let instant = now + .milliseconds(Int64(readyTime.timeIntervalSinceNow * 1000) + 1)
                wake = min(wake ?? instant, instant)
            }
            if wake == nil && inFlight == 0 {
                // Nothing leased and nothing waiting for a time: done, unless
                // entries are queued still (robots skips just freed the batch).
                if try await store.counts().queued == 0 { return nil }
                continue
            }
            await waitForChange(until: wake)
        }
    }

    /// Waits until a page finishes or `deadline` passes.
    private func waitForChange(until deadline: ContinuousClock.Instant?) async {
        await withCheckedContinuation { continuation in
            waiters.append(continuation)
            if let deadline {
                Task { [clock] in
                    try? await Task.sleep(until: deadline, clock: clock)
                    self.wakeAll()
                }
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
            inFlight -= 1
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
        let (discovered, skipped) = classifyLinks(result.links, from: entry)
        var report = result.report
        report.links = result.links.count
        deliver(try await store.complete(entry, report: report, aliases: result.aliases,
                                         discovered: discovered, skipped: skipped))
    }

    private func deliver(_ reports: [PageLoadReport]) {
        for report in reports {
            summary.reports.append(report)
            onReport(report)
        }
    }

    // MARK: Policy

    private func isTransient(_ report: PageLoadReport) -> Bool {
        switch report.outcome {
        case .timeout, .crashed: return true
        case .failed: return report.error?.kind == NavigationError.Kind.connectionReset.rawValue
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

    /// Splits a page's links into entries to crawl and reports of links skipped.
    private func classifyLinks(_ links: [String], from entry: FrontierEntry) -> ([FrontierEntry], [PageLoadReport]) {
        var discovered: [FrontierEntry] = [], skipped: [PageLoadReport] = []
        var seen: Set<String> = []
        for link in links {
            guard let url = URL(string: link), let scheme = url.scheme?.lowercased() else { continue }
            // Not documents: nothing to load or report.
            if ["mailto", "javascript", "tel", "data", "blob", "about"].contains(scheme) { continue }
            guard let canonical = URLCanonicalizer.canonical(url), seen.insert(canonical.absoluteString).inserted,
                  canonical.absoluteString != entry.url else { continue }
            let child = FrontierEntry(url: canonical.absoluteString, depth: entry.depth + 1, parent: entry.url)
            if scheme != "http" && scheme != "https" {
                skipped.append(.skipped(child, .nonHTTP))
            } else if !configuration.scope.contains(canonical, seeds: seeds) || !matchesFilters(canonical) {
                skipped.append(.skipped(child, .scope))
            } else if let maxDepth = configuration.maxDepth, child.depth > maxDepth {
                skipped.append(.skipped(child, .maxDepth))
            } else {
                discovered.append(child)
            }
        }
        return (discovered, skipped)
    }

    private func matchesFilters(_ url: URL) -> Bool {
        let text = url.absoluteString
        let range = NSRange(text.startIndex..., in: text)
        if !include.isEmpty, !include.contains(where: { $0.firstMatch(in: text, range: range) != nil }) { return false }
        return !exclude.contains { $0.firstMatch(in: text, range: range) != nil }
    }

    // MARK: robots.txt

    private func robotsAllow(_ url: URL) async -> Bool {
        guard let scheme = url.scheme, let host = url.host else { return true }
        let origin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        let agent = configuration.robotsAgent
        let fetch = robots[origin] ?? Task { await Self.fetchRobots(origin: origin, agent: agent) }
        robots[origin] = fetch
        return await fetch.value.allows(url)
    }

    /// Fetched once per origin; a missing or unreadable robots.txt allows everything.
    private static func fetchRobots(origin: String, agent: String) async -> RobotsTxt {
        guard let url = URL(string: origin + "/robots.txt") else { return .allowAll }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("\(agent) (robots.txt)", forHTTPHeaderField: "User-Agent")
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              let http = response as? HTTPURLResponse, http.statusCode == 200 else { return .allowAll }
        return RobotsTxt(String(decoding: data, as: UTF8.self), userAgent: agent)
    }
}
