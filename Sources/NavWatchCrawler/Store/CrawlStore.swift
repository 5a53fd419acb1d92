import Foundation

/// Where a crawl keeps its settings, its frontier and its reports, shared by
/// every worker of the crawl.
///
/// Guarantees every implementation gives:
/// - Every change that matters for a resume happens in one transaction, so a
///   worker killed at any point (even with `kill -9`) loses no page and gets
///   none reported twice: a report is stored before its lease is released.
/// - One URL is never leased to two workers at once: a lease ends when its
///   entry completes or is put back, or when it expires without renewal (its
///   worker died), and only then can the entry be leased again.
/// - `lease` decides `maxPages` and per-host politeness (the delay, the
///   host's pacing after push backs, `hostConcurrency`) for all workers
///   together, in the same transaction as the lease.
///
/// `SQLiteCrawlStore` serves the workers of one process; `PostgresCrawlStore`
/// serves workers on any number of machines.
package protocol CrawlStore: Sendable {
    /// Whether workers in other processes may share the store. A store that
    /// is not shared returns every lease on `releaseLeases()` at start.
    var isShared: Bool { get }

    /// The CPU time this process spent in the store's database work so far
    /// (statements, and encoding what they store), in seconds; nil when the
    /// store does not count it. For benchmarks.
    var databaseCPUSeconds: Double? { get }

    /// The settings the crawl was started with; nil before it is started.
    func settings() async throws -> CrawlSettings?

    /// Saves `settings` unless the crawl already has some; returns the ones in force.
    func start(with settings: CrawlSettings) async throws -> CrawlSettings

    /// Adds the entries whose URL the crawl has not seen; returns those it added.
    func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry]

    /// The crawl's seeds: every entry at depth 0, in the order added.
    func seeds() async throws -> [String]

    /// Leases the shallowest, oldest entry that is ready: queued and due, or
    /// leased with its lease expired, on a host that may be asked again.
    func lease(_ request: LeaseRequest) async throws -> LeaseOutcome

    /// Extends `worker`'s leases on `urls` to `until`.
    func renewLeases(_ urls: [String], worker: String, until: Date) async throws

    /// In one transaction: stores `report` and the page's `links` and marks
    /// its URL done; marks `aliases` (redirect targets) as seen, covered by
    /// this report; adds `discovered` entries to the frontier and stores
    /// the reports of the `skipped` links, which the crawl will not load.
    /// Returns the reports stored, in order (reports of URLs that already
    /// have one, and then their links, are left out), without making the
    /// skipped links' reports (`CompletionReports`, `SkippedLinks`).
    func complete(_ entry: FrontierEntry, worker: String, report: PageLoadReport, aliases: [String],
                  discovered: [FrontierEntry], skipped: SkippedLinks, links: [PageLink]) async throws -> CompletionReports

    /// The host `host` pushed back (429, 503): widens its interval for every
    /// worker (`HostPacing.pushedBack`) and pauses it for that long from `now`.
    /// `complete` eases it again: every report of a loaded page or checked
    /// link on a slowed host that is no push back counts as `answered`.
    func pushBack(host: String, retryAfter: Double?, at now: Date) async throws

    /// The hosts of the crawl that pushed back, ordered by host, with the
    /// pages and links loaded or checked on them.
    func hostStatistics() async throws -> [HostStatistics]

    /// Puts a leased entry back, to be tried again at `notBefore`.
    func retry(_ entry: FrontierEntry, notBefore: Date) async throws

    /// Returns every leased entry to the queue (a resume of a store that is not shared).
    func releaseLeases() async throws

    /// Stores a skipped report for every queued entry (for `--max-pages`).
    func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport]

    /// Up to `limit` of the reports stored after the one at `position` (0:
    /// from the first), in the order stored, with their requests when
    /// `includingRequests` (they are most of what a crawl stores).
    /// `storedReports(includingRequests:)` reads them all this way.
    func reports(after position: Int64, limit: Int, includingRequests: Bool) async throws -> [StoredReport]

    /// Every link stored, the redirect targets, and the anchors of the pages
    /// that fragment links point at.
    func linkGraph() async throws -> LinkGraph

    /// The `text=` values (as written) of the text fragments of links to
    /// pages that loaded, by the URL of the page's report, with what a match
    /// against the page found of them so far.
    func textFragmentTargets() async throws -> [String: TextFragmentTarget]

    /// Records what a match of the text directives to the page `url` found
    /// (every value matched so far, not only the new ones).
    func recordTextFragments(_ found: [String: Bool], for url: String) async throws

    /// Replaces the stored JSON of the report of `report.url` (its timings
    /// after one more run, `PageLoadReport.addRun`); its position, requests
    /// and links stay.
    func updateTimings(of report: PageLoadReport) async throws

    func counts() async throws -> CrawlCounts

    /// Releases the store's connection; the store cannot be used afterwards.
    /// Call it before the last reference goes away.
    func close() async
}

/// What a worker asks `CrawlStore.lease` for.
package struct LeaseRequest: Sendable {
    package var worker: String
    package var now: Date
    /// When the lease expires unless renewed.
    package var until: Date
    /// The pause between two requests to the same host, across workers.
    package var hostDelay: TimeInterval
    /// The pause after a request to check a link on another site (at least `hostDelay`).
    package var externalHostDelay: TimeInterval
    /// Pages loaded plus pages leased may not exceed this; links to check
    /// with plain HTTP do not count.
    package var maxPages: Int?
    /// Entries leased at once per host, across workers; nil: no limit.
    package var hostConcurrency: Int?

    package init(worker: String, now: Date, until: Date, hostDelay: TimeInterval, externalHostDelay: TimeInterval = 0,
                maxPages: Int?, hostConcurrency: Int? = nil) {
        self.hostConcurrency = hostConcurrency
        self.worker = worker
        self.now = now
        self.until = until
        self.hostDelay = hostDelay
        self.externalHostDelay = externalHostDelay
        self.maxPages = maxPages
    }

    /// The pause after leasing an entry of `kind` before its host is asked again.
    package func hostDelay(for kind: FrontierEntry.Kind) -> TimeInterval {
        kind.isOutside ? max(hostDelay, externalHostDelay) : hostDelay
    }
}

/// The answer to a `LeaseRequest`.
package enum LeaseOutcome: Sendable, Equatable {
    /// The entry is the worker's until the lease expires.
    case leased(FrontierEntry)
    /// Nothing is ready now. Something may be at `until` (a retry's time, a
    /// host's pause) or sooner, when a lease ends; nil when only a lease can.
    case wait(until: Date?)
    /// The crawl is over: nothing is queued or leased, or `maxPages` pages
    /// were loaded and no lease is left.
    case finished
}

/// The settings that shape a crawl, stored with it so that every worker and
/// every resume follows the same ones.
package struct CrawlSettings: Codable, Sendable, Equatable {
    package var scope: CrawlScope
    package var include: [String]
    package var exclude: [String]
    package var maxDepth: Int?
    package var maxPages: Int?
    /// Milliseconds between two requests to the same host.
    package var delayMilliseconds: Int
    package var obeyRobots: Bool
    package var retries: Int
    /// Whether links that leave the scope are checked with plain HTTP (nil in crawls stored before it existed).
    package var checkExternal: Bool?
    /// How the URLs found are rewritten (nil in crawls stored before remaps existed).
    package var remaps: [URLRemap]?
    /// Entries leased at once per host, across workers (nil: no limit).
    package var hostConcurrency: Int?
    /// Patterns of links neither followed nor checked (nil in crawls stored before them).
    package var ignore: [String]?

    package init(_ configuration: CrawlConfiguration) {
        scope = configuration.scope
        include = configuration.include
        exclude = configuration.exclude
        maxDepth = configuration.maxDepth
        maxPages = configuration.maxPages
        delayMilliseconds = Int(configuration.delay.milliseconds)
        obeyRobots = configuration.obeyRobots
        retries = configuration.retries
        checkExternal = configuration.checkExternal
        remaps = configuration.remaps.isEmpty ? nil : configuration.remaps
        hostConcurrency = configuration.hostConcurrency
        ignore = configuration.ignore.isEmpty ? nil : configuration.ignore
    }

    /// `configuration` with these settings in place of its own.
    package func applied(to configuration: CrawlConfiguration) -> CrawlConfiguration {
        var configuration = configuration
        configuration.scope = scope
        configuration.include = include
        configuration.exclude = exclude
        configuration.maxDepth = maxDepth
        configuration.maxPages = maxPages
        configuration.delay = .milliseconds(delayMilliseconds)
        configuration.obeyRobots = obeyRobots
        configuration.retries = retries
        configuration.checkExternal = checkExternal ?? false
        configuration.remaps = remaps ?? []
        configuration.hostConcurrency = hostConcurrency
        configuration.ignore = ignore ?? []
        return configuration
    }
}

/// How far a crawl has got: its frontier, and its reports by
/// `PageLoadReport.Tally` (the words the closing summary uses too).
package struct CrawlCounts: Sendable, Equatable {
    package var queued = 0
    package var leased = 0
    /// Reports per tally (a tally with none is left out).
    package var tallies: [PageLoadReport.Tally: Int] = [:]
    /// Reports of pages loaded and links or resources checked that failed (`Outcome.isFailure`).
    package var failed = 0
    /// Per worker, by name: leases held now and what it reported.
    package var workers: [WorkerCounts] = []

    package init() {}

    /// Reports stored: every tally.
    package var reported: Int { tallies.values.reduce(0, +) }
    /// Pages loaded (`Tally.loaded`).
    package var loaded: Int { tallies[.loaded] ?? 0 }
}

/// One worker's share of a crawl: leases it holds now, and what it reported.
package struct WorkerCounts: Sendable, Equatable {
    package var worker: String
    package var leased: Int
    /// Pages it loaded (`Tally.loaded`).
    package var loaded: Int
    /// Links and resources it checked (`Tally.checked`).
    package var checked: Int
    /// Of those loaded or checked, the ones that failed.
    package var failed: Int

    package init(worker: String, leased: Int, loaded: Int, checked: Int, failed: Int) {
        (self.worker, self.leased, self.loaded, self.checked, self.failed) = (worker, leased, loaded, checked, failed)
    }
}

/// A report and its place in the order reports were stored.
package struct StoredReport: Sendable {
    /// Increases with every report stored; the first is greater than 0.
    package var position: Int64
    package var report: PageLoadReport

    package init(position: Int64, report: PageLoadReport) {
        (self.position, self.report) = (position, report)
    }
}

extension CrawlStore {
    /// Every stored report, in the order stored, read a batch at a time:
    /// memory holds one batch however many reports there are.
    package func storedReports(includingRequests: Bool, batchSize: Int = 256) -> StoredReports {
        StoredReports(store: self, includingRequests: includingRequests, batchSize: batchSize)
    }

    /// Whether the store holds a crawl already: its settings, or any page
    /// reported, queued or leased. A new crawl may start only in a store
    /// that holds none; one that does is resumed or joined.
    package func holdsCrawl() async throws -> Bool {
        let counts = try await counts()
        return try await settings() != nil || counts.reported + counts.queued + counts.leased > 0
    }

    /// Every stored report, in the order stored, in one array.
    package func allReports(includingRequests: Bool = true) async throws -> [PageLoadReport] {
        var reports: [PageLoadReport] = []
        for try await report in storedReports(includingRequests: includingRequests) { reports.append(report) }
        return reports
    }

    /// Every stored report, read a batch at a time and folded into what a
    /// link check needs of it: memory holds one batch of reports, and the
    /// link check's part of each.
    package func linkCheckReports() async throws -> LinkCheckReports {
        var reports = LinkCheckReports()
        for try await report in storedReports(includingRequests: false) { reports.add(report) }
        return reports
    }
}

/// The text fragments of links to one page, and what matching them against
/// the page found.
package struct TextFragmentTarget: Sendable, Equatable {
    /// Every `text=` value of a link to the page, as written in the link.
    package var values: Set<String> = []
    /// Whether each value matched, for the values matched so far.
    package var found: [String: Bool] = [:]

    package init() {}

    /// The values not matched yet.
    package var unmatched: Set<String> { values.filter { found[$0] == nil } }

    /// `found` for the store's column: one `1 value` or `0 value` per line; nil when empty.
    package static func text(_ found: [String: Bool]) -> String? {
        found.isEmpty ? nil : found.keys.sorted().map { (found[$0]! ? "1 " : "0 ") + $0 }.joined(separator: "\n")
    }

    /// What the store's column says was found.
    package static func found(fromText text: String?) -> [String: Bool] {
        var found: [String: Bool] = [:]
        for line in text?.split(separator: "\n") ?? [] where line.count > 2 {
            found[String(line.dropFirst(2))] = line.first == "1"
        }
        return found
    }

    /// Adds one stored row: a link's fragment to the page and the page's column.
    package mutating func add(fragment: String, foundText: String?) {
        values.formUnion(TextDirective.split(fragment: fragment)?.values ?? [])
        if found.isEmpty { found = Self.found(fromText: foundText) }
    }
}
