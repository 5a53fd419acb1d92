import Foundation
import Logging
import NavWatchCrawler
import PostgresNIO

/// A crawl's frontier and reports in a PostgreSQL database, shared by
/// crawlers (workers) on any number of machines (one crawl per database; its tables are named `navwatch_*`).
///
/// - Workers lease with `SELECT ... FOR UPDATE SKIP LOCKED`, so no URL is
///   handed to two live workers and workers never wait for each other's rows.
///   When `maxPages` or a per-host delay is set, leases are taken one at a
///   time (under a lock on the crawl's settings row) so both hold exactly
///   across workers.
/// - Transactions that add frontier or report rows (`enqueue`, `complete`,
///   `skipQueued`) run one at a time across workers, under an advisory lock
///   taken first: pages share links, and two transactions inserting the same
///   new URLs in different orders would deadlock.
/// - Lease times are the server's clock, so workers on machines whose clocks
///   disagree still agree on when a lease has expired.
/// - A lost connection is reopened and the transaction run again, for up to
///   two minutes; every transaction is safe to run twice.
/// - The schema is created on first use, under an advisory lock, so workers
///   starting together do not race; a worker joining a crawl whose schema is
///   complete locks no table.
public final class PostgresCrawlStore: CrawlStore {
    private let session: PostgresSession
    private let logger: Logger
    package let address: PostgresAddress

    package var isShared: Bool { true }

    /// Not counted: the client's work runs on SwiftNIO's threads.
    package var databaseCPUSeconds: Double? { nil }

    /// Connects to `address` and creates the schema if needed.
    ///
    /// - Throws: `PostgresAddressError` with a one-line message when the
    ///   server cannot be reached or refuses the connection.
    public init(address: PostgresAddress, logger: Logger = Logger(label: "navwatch.postgres")) async throws {
        self.address = address
        self.logger = logger
        session = PostgresSession(configuration: try address.connectionConfiguration(), logger: logger)
        do {
            try await session.connect()
            try await session.transaction { connection in try await Self.createSchema(connection, logger: logger) }
        } catch {
            await session.close()
            throw PostgresAddressError("cannot use \(address): \(PostgresSession.describe(error))")
        }
    }

    /// Closes the connection. The store cannot be used afterwards.
    public func close() async {
        await session.close()
    }

    /// Every stored report, in the order stored, read a batch at a time as
    /// the sequence is iterated (see `SQLiteCrawlStore.storedReports`).
    public func storedReports(includingRequests: Bool = false) -> StoredReports {
        (self as any CrawlStore).storedReports(includingRequests: includingRequests)
    }

    // MARK: CrawlStore

    package func settings() async throws -> CrawlSettings? {
        try await session.transaction { connection in try await self.settings(connection) }
    }

    package func start(with settings: CrawlSettings) async throws -> CrawlSettings {
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        return try await session.transaction { connection in
            try await connection.query("""
                INSERT INTO navwatch_settings (id, json) VALUES (1, \(json)) ON CONFLICT (id) DO NOTHING
                """, logger: self.logger)
            return try await self.settings(connection) ?? settings
        }
    }

    package func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry] {
        try await session.transaction { connection in
            try await self.lockFrontier(connection)
            return try await self.insert(entries.map { ($0, .queued) }, connection).map { entries[$0] }
        }
    }

    package func seeds() async throws -> [String] {
        try await session.transaction { connection in
            try await self.run(Self.frontier.seeds, connection).map { try $0.decode(String.self) }
        }
    }

    package func lease(_ request: LeaseRequest) async throws -> LeaseOutcome {
        let leaseSeconds = request.until.timeIntervalSince(request.now)
        return try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            // One lease at a time across workers: the page count, the hosts'
            // pauses (which a push back may set at any time) and the leases
            // per host are read and written under this lock.
            try await connection.query("SELECT id FROM navwatch_settings WHERE id = 1 FOR UPDATE", logger: self.logger)
            var budget = FrontierRules.PageBudget.open
            if let maxPages = request.maxPages {
                let (loaded, leased, externalLeft) = try await self.run(Self.frontier.pageCounts(now: now), connection)[0]
                    .decode((Int, Int, Int).self)
                budget = FrontierRules.pageBudget(maxPages: maxPages, loaded: loaded, leased: leased, externalLeft: externalLeft)
                if case .spent(let outcome) = budget { return outcome }
            }
            var candidates: [(String, Int, String?, Int, String, String, Double, Int64)] = []
            for entries in FrontierSQL.ReadyEntries.allCases {
                let ready = Self.frontier.nextReady(entries, now: now, onlyExternal: budget == .onlyExternal,
                                                    hostConcurrency: request.hostConcurrency)
                if let row = try await self.run(ready, connection).first {
                    candidates.append(try row.decode((String, Int, String?, Int, String, String, Double, Int64).self))
                }
            }
            if let (url, depth, parent, attempts, kind, host, interval, _) = FrontierRules.earliest(candidates, by: { (depth: $0.1, seq: $0.7) }) {
                var entry = FrontierEntry(url: url, depth: depth, parent: parent, attempts: attempts, storedKind: kind)
                let delay = request.hostDelay(for: entry.kind)
                entry.spacing = max(delay, interval)
                try await self.run(Self.frontier.lease(url, to: request.worker, until: now + leaseSeconds), connection)
                try await self.run(Self.frontier.hostLeased(host, now: now, delay: delay), connection)
                return .leased(entry)
            }
            let (pending, earliest) = try await self.run(Self.frontier.nothingReady(now: now), connection)[0]
                .decode((Int, Double?).self)
            // The server's time, on this machine's clock.
            return FrontierRules.nothingReady(pending: pending, earliest: earliest.map { Date().addingTimeInterval(max(0, $0 - now)) })
        }
    }

    package func renewLeases(_ urls: [String], worker: String, until: Date) async throws {
        guard !urls.isEmpty else { return }
        let seconds = until.timeIntervalSinceNow
        try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            try await self.run(Self.frontier.renewLeases(urls, worker: worker, until: now + seconds), connection)
        }
    }

    package func complete(_ entry: FrontierEntry, worker: String, report: PageLoadReport, aliases: [String],
                         discovered: [FrontierEntry], skipped: SkippedLinks, links: [PageLink]) async throws -> CompletionReports {
        try await session.transaction { connection in
            try await self.lockFrontier(connection)
            var stored = CompletionReports(skipped: skipped)
            if try await self.store(report, kind: entry.kind, worker: worker, connection) {
                stored.storedPage(report)
                if !links.isEmpty {
                    // One statement for all of a page's links; an empty fragment or rel is none.
                    let fragments = links.map { $0.fragment ?? "" }, rels = links.map { $0.rel ?? "" }
                    let routes = links.map { $0.routeText ?? "" }, learned = links.map { $0.learnedFromText ?? "" }
                    let resources = links.map { $0.resource ?? "" }
                    try await connection.query("""
                        INSERT INTO navwatch_links (source, target, href, fragment, text, rel, element, route, learned_from, resource)
                        SELECT s, t, h, NULLIF(f, ''), x, NULLIF(r, ''), e, NULLIF(o, ''), NULLIF(g, ''), NULLIF(a, '') FROM unnest(
                            \(links.map(\.source))::text[], \(links.map(\.target))::text[], \(links.map(\.href))::text[],
                            \(fragments)::text[], \(links.map(\.text))::text[], \(rels)::text[],
                            \(links.map(\.element))::text[], \(routes)::text[], \(learned)::text[],
                            \(resources)::text[]) AS l(s, t, h, f, x, r, e, o, g, a)
                        """, logger: self.logger)
                }
            }
            try await self.run(Self.frontier.complete(entry.url, attempts: report.attempts, worker: worker), connection)
            if FrontierRules.easesHost(report) {
                try await self.pace(entry.host, onlyWhenSlowed: true, connection) { pacing, _ in pacing.answered() }
            }
            let completion = FrontierRules.Completion(entry, aliases: aliases, discovered: discovered, skipped: skipped)
            let added = try await self.insert(completion.rows, connection)
            let addedAliases = completion.aliases(among: added)
            if !addedAliases.isEmpty { try await self.run(Self.frontier.aliases(addedAliases, of: entry.url), connection) }
            for (position, skip, kind) in completion.skippedReports(among: added) {
                if try await self.store(skip, kind: kind, worker: worker, connection) { stored.storedSkipped(at: position) }
            }
            return stored
        }
    }

    package func pushBack(host: String, retryAfter: Double?, at _: Date) async throws {
        try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            try await self.run(Self.frontier.addHost(host), connection)
            let pacing = try await self.pace(host, onlyWhenSlowed: false, connection) { $0.pushedBack(retryAfter: retryAfter, at: now, leaseGap: $1) }
            try await self.run(Self.frontier.pause(host, until: now + pacing.interval), connection)
        }
    }

    /// Changes the pacing of `host` with `change`, when it has a row (and
    /// is slowed down, with `onlyWhenSlowed`), the row locked; returns it as changed.
    @discardableResult
    private func pace(_ host: String, onlyWhenSlowed: Bool, _ connection: PostgresConnection,
                      _ change: (inout HostPacing, _ leaseGap: Double) -> Void) async throws -> HostPacing {
        guard let row = try await run(Self.frontier.pacing(of: host, onlyWhenSlowed: onlyWhenSlowed), connection).first else {
            return HostPacing()
        }
        let (interval, tooFast, answers, pushBacks, widest, widenedAt, leaseGap) =
            try row.decode((Double, Double, Int, Int, Double, Double, Double).self)
        var pacing = HostPacing(interval: interval, tooFast: tooFast, answers: answers, pushBacks: pushBacks, widest: widest,
                                widenedAt: widenedAt)
        change(&pacing, leaseGap)
        try await run(Self.frontier.setPacing(pacing, of: host), connection)
        return pacing
    }

    package func hostStatistics() async throws -> [HostStatistics] {
        try await session.transaction { connection in
            try await self.run(Self.frontier.hostStatistics, connection).map { row in
                let (host, interval, tooFast, answers, pushBacks, widest, widenedAt, requests) =
                    try row.decode((String, Double, Double, Int, Int, Double, Double, Int).self)
                return HostStatistics(host: host, requests: requests,
                                      pacing: HostPacing(interval: interval, tooFast: tooFast, answers: answers, pushBacks: pushBacks,
                                                         widest: widest, widenedAt: widenedAt))
            }
        }
    }

    package func retry(_ entry: FrontierEntry, notBefore: Date) async throws {
        let delay = max(0, notBefore.timeIntervalSinceNow)
        try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            try await self.run(Self.frontier.retry(entry.url, attempts: entry.attempts, notBefore: now + delay), connection)
        }
    }

    package func releaseLeases() async throws {
        try await session.transaction { connection in try await self.run(Self.frontier.releaseLeases, connection) }
    }

    package func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport] {
        try await session.transaction { connection in
            try await self.lockFrontier(connection)
            var stored: [PageLoadReport] = []
            for row in try await self.run(Self.frontier.queued, connection) {
                let entry = try Self.entry(row)
                let report = PageLoadReport.skipped(entry, reason)
                if try await self.store(report, kind: entry.kind, worker: nil, connection) { stored.append(report) }
                try await self.run(Self.frontier.skip(entry.url), connection)
            }
            return stored
        }
    }

    package func reports(after position: Int64, limit: Int, includingRequests: Bool) async throws -> [StoredReport] {
        try await session.transaction { connection in
            try await self.run(Self.reportSQL.reports(after: position, limit: limit, includingRequests: includingRequests),
                               connection).map { row in
                let (seq, json, requests) = try row.decode((Int64, String, String?).self)
                return StoredReport(position: seq, report: try PageLoadReport(json: json, requests: requests))
            }
        }
    }

    package func linkGraph() async throws -> LinkGraph {
        try await session.transaction { connection in
            var graph = LinkGraph()
            let links = try await self.run(Self.reportSQL.allLinks, connection)
            // A page's links are stored together: they share one copy of its URL.
            var source = "", learnedFrom = PageLink.LearnedFromReader()
            graph.links = try links.map { row in
                let (rowSource, target, href, fragment, text, rel, element, routeText, learnedText, resource) =
                    try row.decode((String, String, String, String?, String, String?, String, String?, String?, String?).self)
                if rowSource != source { source = rowSource }
                let route = PageLink.route(fromText: routeText)
                return PageLink(source: source, target: target, href: href, fragment: fragment, text: text, rel: rel,
                                element: element, reached: route.reached, routeTitle: route.title,
                                learnedFrom: learnedFrom.read(learnedText), resource: resource)
            }
            for row in try await self.run(Self.reportSQL.aliases, connection) {
                let (url, aliasOf) = try row.decode((String, String).self)
                graph.aliases[url] = aliasOf
            }
            let pages = graph.fragmentTargets
            for row in try await self.run(Self.reportSQL.anchors, connection) {
                let (url, anchors, textFragments) = try row.decode((String, String?, String?).self)
                graph.addAnchors(of: url, anchors: anchors, textFragments: textFragments, among: pages)
            }
            return graph
        }
    }

    package func textFragmentTargets() async throws -> [String: TextFragmentTarget] {
        try await session.transaction { connection in
            var targets: [String: TextFragmentTarget] = [:]
            for row in try await self.run(Self.reportSQL.textFragmentLinks, connection) {
                let (url, fragment, found) = try row.decode((String, String, String?).self)
                targets[url, default: TextFragmentTarget()].add(fragment: fragment, foundText: found)
            }
            return targets
        }
    }

    package func recordTextFragments(_ found: [String: Bool], for url: String) async throws {
        try await session.transaction { connection in
            _ = try await self.run(Self.reportSQL.recordTextFragments(found, for: url), connection)
        }
    }

    package func updateTimings(of report: PageLoadReport) async throws {
        try await session.transaction { connection in
            _ = try await self.run(Self.reportSQL.update(report), connection)
        }
    }

    package func counts() async throws -> CrawlCounts {
        try await session.transaction { connection in
            var counts = CrawlCounts()
            if let row = try await self.run(Self.frontier.frontierCounts, connection).first {
                (counts.queued, counts.leased) = try row.decode((Int, Int).self)
            }
            for row in try await self.run(Self.reportSQL.tallies, connection) {
                let (name, count, failed) = try row.decode((String, Int, Int).self)
                guard let tally = PageLoadReport.Tally(rawValue: name) else { continue }
                counts.tallies[tally] = count
                counts.failed += failed
            }
            counts.workers = try await self.run(Self.reportSQL.workerCounts, connection).map { row in
                let (worker, leased, loaded, checked, failed) = try row.decode((String?, Int, Int, Int, Int).self)
                return WorkerCounts(worker: worker ?? "", leased: leased, loaded: loaded, checked: checked, failed: failed)
            }
            return counts
        }
    }

    // MARK: Queries

    private func settings(_ connection: PostgresConnection) async throws -> CrawlSettings? {
        try await strings(connection, "SELECT json FROM navwatch_settings WHERE id = 1").first.map {
            try JSONDecoder().decode(CrawlSettings.self, from: Data($0.utf8))
        }
    }

    /// Seconds since 1970 on the server's clock.
    private func serverNow(_ connection: PostgresConnection) async throws -> Double {
        let rows = try await connection.query("SELECT extract(epoch FROM clock_timestamp())::float8", logger: logger).collect()
        return try rows[0].decode(Double.self)
    }

    private func strings(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [String] {
        try await connection.query(query, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// Waits for the lock that transactions adding frontier or report rows
    /// take first; PostgreSQL releases it when the transaction ends.
    private func lockFrontier(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(7417200002)", logger: logger)
    }

    /// Inserts, each in its state, the entries whose URL is new, in one
    /// statement and in the order given (their `seq` order, so their lease
    /// order within a depth); a URL given twice counts once, the first time.
    /// Returns the indexes in `entries` of those inserted.
    private func insert(_ entries: [(entry: FrontierEntry, state: FrontierState)],
                        _ connection: PostgresConnection) async throws -> [Int] {
        guard !entries.isEmpty else { return [] }
        let list = entries.map(\.entry)
        // An empty parent is none, as nothing links from an empty URL.
        let rows = try await connection.query("""
            INSERT INTO navwatch_frontier (url, depth, parent, state, attempts, host, kind)
            SELECT u, d, NULLIF(p, ''), s, a, h, k FROM unnest(
                \(list.map(\.url))::text[], \(list.map(\.depth))::bigint[], \(list.map { $0.parent ?? "" })::text[],
                \(entries.map(\.state.rawValue))::text[], \(list.map(\.attempts))::bigint[], \(list.map(\.host))::text[],
                \(list.map(\.kind.rawValue))::text[]) WITH ORDINALITY AS e(u, d, p, s, a, h, k, n)
            ORDER BY n
            ON CONFLICT (url) DO NOTHING RETURNING url
            """, logger: logger).collect()
        var inserted = Set(try rows.map { try $0.decode(String.self) })
        return list.indices.filter { inserted.remove(list[$0].url) != nil }
    }

    /// Stores `report` unless one for its URL exists; returns whether it did.
    private func store(_ report: PageLoadReport, kind: FrontierEntry.Kind, worker: String?,
                       _ connection: PostgresConnection) async throws -> Bool {
        try await !run(Self.reportSQL.store(report, kind: kind, worker: worker), connection).isEmpty
    }

    // MARK: Running FrontierSQL and ReportSQL

    private static let frontier = FrontierSQL(.postgreSQL)
    private static let reportSQL = ReportSQL(.postgreSQL)

    /// Runs `statement`; returns its rows.
    @discardableResult
    private func run(_ statement: SQLStatement, _ connection: PostgresConnection) async throws -> [PostgresRow] {
        let (sql, arguments) = SQLDialect.postgreSQL.spell(statement)
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .real(let value): binds.append(value)
            case .text(let value): binds.append(value)
            case .texts(let values): binds.append(values)
            }
        }
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
    }

    /// A `FrontierEntry` from `FrontierSQL`'s columns of one.
    private static func entry(_ row: PostgresRow) throws -> FrontierEntry {
        let (url, depth, parent, attempts, kind) = try row.decode((String, Int, String?, Int, String).self)
        return FrontierEntry(url: url, depth: depth, parent: parent, attempts: attempts, storedKind: kind)
    }
}
