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

    /// Creates the tables, columns and indexes that are missing. CREATE INDEX
    /// and ALTER TABLE lock their table even when IF NOT EXISTS finds nothing
    /// to do (ALTER TABLE exclusively), and a worker joining a running crawl
    /// would then deadlock with the workers storing pages: they run only when
    /// their index or column is missing.
    private static func createSchema(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(7417200001)", logger: logger)
        for statement: PostgresQuery in [
            """
            CREATE TABLE IF NOT EXISTS navwatch_settings (
                id int PRIMARY KEY CHECK (id = 1),
                json text NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_frontier (
                url text PRIMARY KEY,
                depth bigint NOT NULL,
                parent text,
                state text NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
                attempts bigint NOT NULL DEFAULT 0,
                not_before float8 NOT NULL DEFAULT 0,
                seq bigserial NOT NULL,
                host text NOT NULL,
                worker text,
                lease_until float8 NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_reports (
                seq bigserial PRIMARY KEY,
                url text NOT NULL UNIQUE,
                outcome text NOT NULL,
                json text NOT NULL,
                worker text)
            """,
            """
            CREATE TABLE IF NOT EXISTS navwatch_links (
                seq bigserial PRIMARY KEY,
                source text NOT NULL,
                target text NOT NULL,
                href text NOT NULL,
                fragment text,
                text text NOT NULL,
                rel text,
                element text NOT NULL)
            """,
            "CREATE TABLE IF NOT EXISTS navwatch_hosts (host text PRIMARY KEY, next_at float8 NOT NULL)",
        ] {
            try await connection.query(statement, logger: logger)
        }
        for (table, column, type) in [
            ("navwatch_reports", "requests", "text"),
            ("navwatch_reports", "kind", "text NOT NULL DEFAULT 'page'"),
            ("navwatch_reports", "anchors", "text"),
            ("navwatch_frontier", "kind", "text NOT NULL DEFAULT 'page'"),
            ("navwatch_frontier", "alias_of", "text"),
            ("navwatch_hosts", "backoff", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "too_fast", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "answers", "integer NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "push_backs", "integer NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "widest", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "widened_at", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "leased_at", "float8 NOT NULL DEFAULT 0"),
            ("navwatch_hosts", "lease_gap", "float8 NOT NULL DEFAULT 0"),
        ] {
            let present = try await connection.query("""
                SELECT 1 FROM pg_attribute WHERE attrelid = \(table)::regclass AND attname = \(column) AND NOT attisdropped
                """, logger: logger).collect()
            if present.isEmpty {
                try await connection.query("ALTER TABLE \(unescaped: table) ADD COLUMN IF NOT EXISTS \(unescaped: column) \(unescaped: type)",
                                           logger: logger)
            }
        }
        for (index, definition) in [
            ("navwatch_frontier_ready", "navwatch_frontier (state, depth, seq)"),
            ("navwatch_links_target", "navwatch_links (target)"),
            // `lease` counts the loaded pages for `maxPages` every time.
            ("navwatch_reports_counted", "navwatch_reports (outcome, kind)"),
        ] {
            let present = try await connection.query("SELECT 1 WHERE to_regclass(\(index)) IS NOT NULL", logger: logger).collect()
            if present.isEmpty {
                try await connection.query("CREATE INDEX IF NOT EXISTS \(unescaped: index) ON \(unescaped: definition)", logger: logger)
            }
        }
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
            return try await self.insert(entries.map { ($0, "queued") }, connection).map(\.entry)
        }
    }

    package func seeds() async throws -> [String] {
        try await session.transaction { connection in
            try await self.strings(connection, "SELECT url FROM navwatch_frontier WHERE depth = 0 ORDER BY seq")
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
            // Past `maxPages` pages, only links to check are leased.
            var pagesFull = false
            if let maxPages = request.maxPages {
                // One statement, so one snapshot: a page completed meanwhile is
                // counted once, as loaded or as leased, never as neither.
                let rows = try await connection.query("""
                    SELECT (SELECT COUNT(*) FROM navwatch_reports WHERE outcome != 'skipped' AND kind != 'external'),
                           (SELECT COUNT(*) FROM navwatch_frontier
                            WHERE state = 'leased' AND lease_until >= \(now) AND kind != 'external'),
                           (SELECT COUNT(*) FROM navwatch_frontier WHERE state != 'done' AND kind = 'external')
                    """, logger: self.logger).collect()
                let (loaded, leased, externalLeft) = try rows[0].decode((Int, Int, Int).self)
                pagesFull = loaded + leased >= maxPages
                if pagesFull && externalLeft == 0 { return leased == 0 ? .finished : .wait(until: nil) }
            }
            // Hosts with `hostConcurrency` entries leased take no more (0: no limit).
            let ready = try await connection.query("""
                SELECT url, depth, parent, attempts, host, kind FROM navwatch_frontier f
                WHERE ((state = 'queued' AND not_before <= \(now)) OR (state = 'leased' AND lease_until < \(now)))
                  AND NOT EXISTS (SELECT 1 FROM navwatch_hosts h WHERE h.host = f.host AND h.next_at > \(now))
                  AND (NOT \(pagesFull) OR kind = 'external')
                  AND (\(request.hostConcurrency ?? 0) = 0 OR host NOT IN (
                      SELECT host FROM navwatch_frontier WHERE state = 'leased' AND lease_until >= \(now)
                      GROUP BY host HAVING COUNT(*) >= \(request.hostConcurrency ?? 0)))
                ORDER BY depth, seq LIMIT 1
                FOR UPDATE SKIP LOCKED
                """, logger: self.logger).collect()
            if let row = ready.first {
                let (url, depth, parent, attempts, host, kind) = try row.decode((String, Int, String?, Int, String, String).self)
                try await connection.query("""
                    UPDATE navwatch_frontier SET state = 'leased', worker = \(request.worker),
                        lease_until = \(now + leaseSeconds) WHERE url = \(url)
                    """, logger: self.logger)
                let entry = FrontierEntry(url: url, depth: depth, parent: parent, attempts: attempts,
                                          kind: FrontierEntry.Kind(rawValue: kind) ?? .page)
                // The host's next request waits for the delay, or for its
                // pacing after push backs when that is longer.
                let delay = request.hostDelay(for: entry.kind)
                try await connection.query("""
                    INSERT INTO navwatch_hosts (host, next_at, leased_at) VALUES (\(host), \(now + delay), \(now))
                    ON CONFLICT (host) DO UPDATE SET next_at = \(now) + GREATEST(\(delay), navwatch_hosts.backoff),
                        lease_gap = \(now) - navwatch_hosts.leased_at, leased_at = \(now)
                    """, logger: self.logger)
                return .leased(entry)
            }
            // Nothing ready: over when nothing is queued or leased, else wait
            // for the earliest retry time, host pause or lease expiry.
            let pending = try await self.count(connection, "SELECT COUNT(*) FROM navwatch_frontier WHERE state != 'done'")
            if pending == 0 { return .finished }
            let rows = try await connection.query("""
                SELECT LEAST(
                    (SELECT MIN(not_before) FROM navwatch_frontier WHERE state = 'queued' AND not_before > \(now)),
                    (SELECT MIN(lease_until) FROM navwatch_frontier WHERE state = 'leased'),
                    (SELECT MIN(next_at) FROM navwatch_hosts WHERE next_at > \(now)
                     AND host IN (SELECT host FROM navwatch_frontier WHERE state = 'queued')))
                """, logger: self.logger).collect()
            let until = try rows.first?.decode(Double?.self)
            return .wait(until: until.map { Date().addingTimeInterval(max(0, $0 - now)) })
        }
    }

    package func renewLeases(_ urls: [String], worker: String, until: Date) async throws {
        guard !urls.isEmpty else { return }
        let seconds = until.timeIntervalSinceNow
        try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            try await connection.query("""
                UPDATE navwatch_frontier SET lease_until = \(now + seconds)
                WHERE state = 'leased' AND worker = \(worker) AND url = ANY(\(urls))
                """, logger: self.logger)
        }
    }

    package func complete(_ entry: FrontierEntry, worker: String, report: PageLoadReport, aliases: [String],
                         discovered: [FrontierEntry], skipped: [PageLoadReport], links: [PageLink]) async throws -> [PageLoadReport] {
        try await session.transaction { connection in
            try await self.lockFrontier(connection)
            var stored: [PageLoadReport] = []
            if try await self.store(report, kind: entry.kind, worker: worker, connection) {
                stored.append(report)
                if !links.isEmpty {
                    // One statement for all of a page's links; an empty fragment or rel is none.
                    let fragments = links.map { $0.fragment ?? "" }, rels = links.map { $0.rel ?? "" }
                    try await connection.query("""
                        INSERT INTO navwatch_links (source, target, href, fragment, text, rel, element)
                        SELECT s, t, h, NULLIF(f, ''), x, NULLIF(r, ''), e FROM unnest(
                            \(links.map(\.source))::text[], \(links.map(\.target))::text[], \(links.map(\.href))::text[],
                            \(fragments)::text[], \(links.map(\.text))::text[], \(rels)::text[],
                            \(links.map(\.element))::text[]) AS l(s, t, h, f, x, r, e)
                        """, logger: self.logger)
                }
            }
            try await connection.query("""
                UPDATE navwatch_frontier SET state = 'done', attempts = \(report.attempts), worker = \(worker)
                WHERE url = \(entry.url)
                """, logger: self.logger)
            if report.wasLoaded && !HostPacing.isPushBack(report.status) {
                try await self.pace(entry.host, onlyWhenSlowed: true, connection) { pacing, _ in pacing.answered() }
            }
            // One statement for the aliases (done), the links to follow
            // (queued) and the links skipped (done), in that order.
            let aliasEntries = aliases.map { FrontierEntry(url: $0, depth: entry.depth, parent: entry.parent) }
            // A link answered from `RecentChecks` is a link checked, not a page.
            let skippedEntries = skipped.map { FrontierEntry(url: $0.url, depth: $0.depth, parent: $0.parent,
                                                             kind: $0.checkedWith == nil ? .page : .external) }
            let rows = aliasEntries.map { ($0, "done") } + discovered.map { ($0, "queued") } + skippedEntries.map { ($0, "done") }
            let added = try await self.insert(rows, connection)
            let addedAliases = added.prefix { $0.index < aliasEntries.count }.map(\.entry.url)
            if !addedAliases.isEmpty {
                try await connection.query("""
                    UPDATE navwatch_frontier SET alias_of = \(entry.url) WHERE url = ANY(\(addedAliases))
                    """, logger: self.logger)
            }
            let firstSkipped = aliasEntries.count + discovered.count
            for (index, _) in added where index >= firstSkipped {
                let skip = skipped[index - firstSkipped]
                if try await self.store(skip, kind: skippedEntries[index - firstSkipped].kind, worker: worker, connection) {
                    stored.append(skip)
                }
            }
            return stored
        }
    }

    package func pushBack(host: String, retryAfter: Double?, at _: Date) async throws {
        try await session.transaction { connection in
            let now = try await self.serverNow(connection)
            try await connection.query("""
                INSERT INTO navwatch_hosts (host, next_at) VALUES (\(host), 0) ON CONFLICT (host) DO NOTHING
                """, logger: self.logger)
            let pacing = try await self.pace(host, onlyWhenSlowed: false, connection) { $0.pushedBack(retryAfter: retryAfter, at: now, leaseGap: $1) }
            try await connection.query("""
                UPDATE navwatch_hosts SET next_at = GREATEST(next_at, \(now + pacing.interval)) WHERE host = \(host)
                """, logger: self.logger)
        }
    }

    /// Changes the pacing of `host` with `change`, when it has a row (and
    /// is slowed down, with `onlyWhenSlowed`), the row locked; returns it as changed.
    @discardableResult
    private func pace(_ host: String, onlyWhenSlowed: Bool, _ connection: PostgresConnection,
                      _ change: (inout HostPacing, _ leaseGap: Double) -> Void) async throws -> HostPacing {
        let rows = try await connection.query("""
            SELECT backoff, too_fast, answers, push_backs, widest, widened_at, lease_gap FROM navwatch_hosts
            WHERE host = \(host) AND (backoff > 0 OR NOT \(onlyWhenSlowed)) FOR UPDATE
            """, logger: logger).collect()
        guard let row = rows.first else { return HostPacing() }
        let (interval, tooFast, answers, pushBacks, widest, widenedAt, leaseGap) =
            try row.decode((Double, Double, Int, Int, Double, Double, Double).self)
        var pacing = HostPacing(interval: interval, tooFast: tooFast, answers: answers, pushBacks: pushBacks, widest: widest,
                                widenedAt: widenedAt)
        change(&pacing, leaseGap)
        try await connection.query("""
            UPDATE navwatch_hosts SET backoff = \(pacing.interval), too_fast = \(pacing.tooFast), answers = \(pacing.answers),
                push_backs = \(pacing.pushBacks), widest = \(pacing.widest), widened_at = \(pacing.widenedAt) WHERE host = \(host)
            """, logger: logger)
        return pacing
    }

    package func hostStatistics() async throws -> [HostStatistics] {
        try await session.transaction { connection in
            try await connection.query("""
                SELECT h.host, h.backoff, h.too_fast, h.answers, h.push_backs, h.widest, h.widened_at,
                       (SELECT COUNT(*) FROM navwatch_frontier f JOIN navwatch_reports r ON r.url = f.url
                        WHERE f.host = h.host AND r.outcome NOT IN ('skipped', 'blocked'))::int
                FROM navwatch_hosts h WHERE h.push_backs > 0 ORDER BY h.host
                """, logger: self.logger).collect().map { row in
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
            try await connection.query("""
                UPDATE navwatch_frontier SET state = 'queued', attempts = \(entry.attempts), not_before = \(now + delay)
                WHERE url = \(entry.url)
                """, logger: self.logger)
        }
    }

    package func releaseLeases() async throws {
        try await session.transaction { connection in
            try await connection.query("UPDATE navwatch_frontier SET state = 'queued' WHERE state = 'leased'", logger: self.logger)
        }
    }

    package func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport] {
        try await session.transaction { connection in
            try await self.lockFrontier(connection)
            let rows = try await connection.query("""
                SELECT url, depth, parent, attempts, kind FROM navwatch_frontier WHERE state = 'queued'
                ORDER BY depth, seq FOR UPDATE SKIP LOCKED
                """, logger: self.logger).collect()
            var stored: [PageLoadReport] = []
            for row in rows {
                let (url, depth, parent, attempts, kind) = try row.decode((String, Int, String?, Int, String).self)
                let entry = FrontierEntry(url: url, depth: depth, parent: parent, attempts: attempts,
                                          kind: FrontierEntry.Kind(rawValue: kind) ?? .page)
                let report = PageLoadReport.skipped(entry, reason)
                if try await self.store(report, kind: entry.kind, worker: nil, connection) { stored.append(report) }
                try await connection.query("UPDATE navwatch_frontier SET state = 'done' WHERE url = \(url)", logger: self.logger)
            }
            return stored
        }
    }

    package func reports(after position: Int64, limit: Int, includingRequests: Bool) async throws -> [StoredReport] {
        try await session.transaction { connection in
            let query: PostgresQuery = includingRequests
                ? "SELECT seq, json, requests FROM navwatch_reports WHERE seq > \(position) ORDER BY seq LIMIT \(limit)"
                : "SELECT seq, json, NULL::text FROM navwatch_reports WHERE seq > \(position) ORDER BY seq LIMIT \(limit)"
            let rows = try await connection.query(query, logger: self.logger).collect()
            return try rows.map { row in
                let (seq, json, requests) = try row.decode((Int64, String, String?).self)
                return StoredReport(position: seq, report: try PageLoadReport(json: json, requests: requests))
            }
        }
    }

    package func linkGraph() async throws -> LinkGraph {
        try await session.transaction { connection in
            var graph = LinkGraph()
            let links = try await connection.query("""
                SELECT source, target, href, fragment, text, rel, element FROM navwatch_links ORDER BY seq
                """, logger: self.logger).collect()
            graph.links = try links.map { row in
                let (source, target, href, fragment, text, rel, element) =
                    try row.decode((String, String, String, String?, String, String?, String).self)
                return PageLink(source: source, target: target, href: href, fragment: fragment, text: text, rel: rel,
                                element: element)
            }
            let aliases = try await connection.query("""
                SELECT url, alias_of FROM navwatch_frontier WHERE alias_of IS NOT NULL
                """, logger: self.logger).collect()
            for row in aliases {
                let (url, aliasOf) = try row.decode((String, String).self)
                graph.aliases[url] = aliasOf
            }
            let anchors = try await connection.query("""
                SELECT url, anchors FROM navwatch_reports WHERE url IN (
                    SELECT COALESCE(f.alias_of, l.target) FROM navwatch_links l
                    LEFT JOIN navwatch_frontier f ON f.url = l.target WHERE l.fragment IS NOT NULL)
                """, logger: self.logger).collect()
            for row in anchors {
                let (url, text) = try row.decode((String, String?).self)
                graph.anchors[url] = PageLoadReport.anchors(fromText: text)
            }
            return graph
        }
    }

    package func counts() async throws -> CrawlCounts {
        try await session.transaction { connection in
            var counts = CrawlCounts()
            let totals = try await connection.query("""
                SELECT (SELECT COUNT(*) FROM navwatch_frontier WHERE state = 'queued'),
                       (SELECT COUNT(*) FROM navwatch_frontier WHERE state = 'leased'),
                       (SELECT COUNT(*) FROM navwatch_reports),
                       (SELECT COUNT(*) FROM navwatch_reports WHERE outcome != 'skipped' AND kind != 'external'),
                       (SELECT COUNT(*) FROM navwatch_reports WHERE \(unescaped: CrawlCounts.failedOutcomes))
                """, logger: self.logger).collect()
            if let row = totals.first {
                (counts.queued, counts.leased, counts.reported, counts.loaded, counts.failed) =
                    try row.decode((Int, Int, Int, Int, Int).self)
            }
            let workers = try await connection.query("""
                SELECT worker, SUM(leased)::bigint, SUM(loaded)::bigint, SUM(failed)::bigint FROM (
                    SELECT worker, 1 AS leased, 0 AS loaded, 0 AS failed FROM navwatch_frontier WHERE state = 'leased'
                    UNION ALL
                    SELECT worker, 0, (outcome != 'skipped')::int, (\(unescaped: CrawlCounts.failedOutcomes))::int FROM navwatch_reports
                    WHERE worker IS NOT NULL) AS shares
                GROUP BY worker ORDER BY worker
                """, logger: self.logger).collect()
            counts.workers = try workers.map { row in
                let (worker, leased, loaded, failed) = try row.decode((String?, Int, Int, Int).self)
                return WorkerCounts(worker: worker ?? "", leased: leased, loaded: loaded, failed: failed)
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

    private func count(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> Int {
        try await connection.query(query, logger: logger).collect().first?.decode(Int.self) ?? 0
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
    /// Returns those inserted, with their index in `entries`.
    private func insert(_ entries: [(entry: FrontierEntry, state: String)],
                        _ connection: PostgresConnection) async throws -> [(index: Int, entry: FrontierEntry)] {
        guard !entries.isEmpty else { return [] }
        let list = entries.map(\.entry)
        // An empty parent is none, as nothing links from an empty URL.
        let rows = try await connection.query("""
            INSERT INTO navwatch_frontier (url, depth, parent, state, attempts, host, kind)
            SELECT u, d, NULLIF(p, ''), s, a, h, k FROM unnest(
                \(list.map(\.url))::text[], \(list.map(\.depth))::bigint[], \(list.map { $0.parent ?? "" })::text[],
                \(entries.map(\.state))::text[], \(list.map(\.attempts))::bigint[], \(list.map(\.host))::text[],
                \(list.map(\.kind.rawValue))::text[]) WITH ORDINALITY AS e(u, d, p, s, a, h, k, n)
            ORDER BY n
            ON CONFLICT (url) DO NOTHING RETURNING url
            """, logger: logger).collect()
        var inserted = Set(try rows.map { try $0.decode(String.self) })
        return list.enumerated().filter { inserted.remove($0.element.url) != nil }.map { ($0.offset, $0.element) }
    }

    /// Stores `report` unless one for its URL exists; returns whether it did.
    private func store(_ report: PageLoadReport, kind: FrontierEntry.Kind, worker: String?,
                       _ connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("""
            INSERT INTO navwatch_reports (url, outcome, json, worker, requests, kind, anchors)
            VALUES (\(report.url), \(report.outcome.rawValue), \(report.jsonLine), \(worker), \(report.requestsJSON),
                    \(kind == .external ? "external" : "page"), \(report.anchorsText))
            ON CONFLICT (url) DO NOTHING RETURNING seq
            """, logger: logger).collect()
        return !rows.isEmpty
    }
}
