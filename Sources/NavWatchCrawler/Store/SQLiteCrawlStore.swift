import Foundation
import GRDB

/// A crawl's frontier and reports in one SQLite file (WAL mode), for the
/// crawlers of one process; what `navwatch crawl --db FILE` writes, and
/// what `navwatch export`, `links` and `report` read. Databases written by
/// earlier versions are migrated when opened.
///
/// A committed report survives the process being killed (`kill -9`); only
/// a power loss can take back the last pages, which a resume loads again.
public final class SQLiteCrawlStore: CrawlStore {
    private let database: DatabaseQueue
    private let cpu = CPUTimeCounter()

    package var isShared: Bool { false }

    package var databaseCPUSeconds: Double? { cpu.seconds }

    /// Opens or creates the crawl database at `path`, creating or migrating its schema.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // WAL with synchronous=NORMAL: a commit survives a killed process
        // (kill -9) without waiting for the disk on every page; only a power
        // loss can take back the last pages, which a resume then loads again.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // `IF NOT EXISTS`: databases of the first version have these tables
        // but no record of migrations.
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS frontier (
                    url TEXT PRIMARY KEY NOT NULL,
                    depth INTEGER NOT NULL,
                    parent TEXT,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    not_before REAL NOT NULL DEFAULT 0,
                    seq INTEGER NOT NULL
                );
                CREATE INDEX IF NOT EXISTS frontier_ready ON frontier (state, depth, seq);
                CREATE TABLE IF NOT EXISTS reports (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    url TEXT NOT NULL UNIQUE,
                    outcome TEXT NOT NULL,
                    json TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: workers, leases, hosts, settings") { db in
            try db.execute(sql: """
                ALTER TABLE frontier ADD COLUMN host TEXT NOT NULL DEFAULT '';
                ALTER TABLE frontier ADD COLUMN worker TEXT;
                ALTER TABLE frontier ADD COLUMN lease_until REAL NOT NULL DEFAULT 0;
                ALTER TABLE reports ADD COLUMN worker TEXT;
                CREATE TABLE hosts (host TEXT PRIMARY KEY NOT NULL, next_at REAL NOT NULL);
                CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL);
                """)
            for url in try String.fetchAll(db, sql: "SELECT url FROM frontier") {
                try db.execute(sql: "UPDATE frontier SET host = ? WHERE url = ?", arguments: [FrontierEntry.host(of: url), url])
            }
        }
        migrator.registerMigration("v3: every request of a page") { db in
            try db.execute(sql: "ALTER TABLE reports ADD COLUMN requests TEXT")
        }
        migrator.registerMigration("v4: the link graph, anchors, aliases, entry kinds") { db in
            try db.execute(sql: """
                ALTER TABLE frontier ADD COLUMN kind TEXT NOT NULL DEFAULT 'page';
                ALTER TABLE frontier ADD COLUMN alias_of TEXT;
                ALTER TABLE reports ADD COLUMN kind TEXT NOT NULL DEFAULT 'page';
                ALTER TABLE reports ADD COLUMN anchors TEXT;
                CREATE TABLE links (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    source TEXT NOT NULL,
                    target TEXT NOT NULL,
                    href TEXT NOT NULL,
                    fragment TEXT,
                    text TEXT NOT NULL,
                    rel TEXT,
                    element TEXT NOT NULL
                );
                CREATE INDEX links_target ON links (target);
                """)
        }
        migrator.registerMigration("v5: counting loaded pages from an index") { db in
            // `lease` counts the loaded pages for `maxPages` every time: over
            // the reports' JSON that is a scan of the whole file per page.
            try db.execute(sql: "CREATE INDEX reports_counted ON reports (outcome, kind)")
        }
        migrator.registerMigration("v6: the next frontier position from an index") { db in
            // Each insert numbers its entry MAX(seq) + 1: without this index
            // that is a scan of the whole frontier per link of every page.
            try db.execute(sql: "CREATE INDEX frontier_seq ON frontier (seq)")
            // `lease` counts the external links left to check: from this
            // index, not a scan of the frontier.
            try db.execute(sql: "CREATE INDEX frontier_kind ON frontier (kind, state)")
        }
        migrator.registerMigration("v7: hosts paced after push backs") { db in
            try db.execute(sql: """
                ALTER TABLE hosts ADD COLUMN backoff REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN too_fast REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN answers INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN push_backs INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN widest REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN widened_at REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN leased_at REAL NOT NULL DEFAULT 0;
                ALTER TABLE hosts ADD COLUMN lease_gap REAL NOT NULL DEFAULT 0;
                """)
        }
        return migrator
    }

    package func settings() async throws -> CrawlSettings? {
        try await read { db in try Self.settings(in: db) }
    }

    package func start(with settings: CrawlSettings) async throws -> CrawlSettings {
        try await write { db in
            if let stored = try Self.settings(in: db) { return stored }
            let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
            try db.execute(sql: "INSERT INTO settings (id, json) VALUES (1, ?)", arguments: [json])
            return settings
        }
    }

    package func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry] {
        try await write { db in try Self.insert(entries, state: "queued", in: db) }
    }

    package func seeds() async throws -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT url FROM frontier WHERE depth = 0 ORDER BY seq")
        }
    }

    package func lease(_ request: LeaseRequest) async throws -> LeaseOutcome {
        let now = request.now.timeIntervalSince1970
        return try await write { db in
            // Past `maxPages` pages, only links to check are leased.
            var pagesFull = false
            if let maxPages = request.maxPages {
                let loaded = try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM reports WHERE outcome IN \(Self.loadedOutcomes) AND kind = 'page'
                    """)) ?? 0
                let leased = try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM frontier WHERE state = 'leased' AND lease_until >= ? AND kind != 'external'
                    """), arguments: [now]) ?? 0
                pagesFull = loaded + leased >= maxPages
                let externalLeft = try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM frontier WHERE kind = 'external' AND state IN ('queued', 'leased')
                    """)) ?? 0
                if pagesFull && externalLeft == 0 { return leased == 0 ? .finished : .wait(until: nil) }
            }
            // Hosts with `hostConcurrency` entries leased take no more.
            let busyHosts = request.hostConcurrency == nil ? "" : """
                  AND host NOT IN (SELECT host FROM frontier WHERE state = 'leased' AND lease_until >= :now
                                   GROUP BY host HAVING COUNT(*) >= :hostConcurrency)
                """
            if let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT url, depth, parent, attempts, host, kind FROM frontier
                WHERE ((state = 'queued' AND not_before <= :now) OR (state = 'leased' AND lease_until < :now))
                  AND NOT EXISTS (SELECT 1 FROM hosts WHERE hosts.host = frontier.host AND hosts.next_at > :now)
                  AND (:pagesFull = 0 OR kind = 'external')
                \(busyHosts)
                ORDER BY depth, seq LIMIT 1
                """), arguments: ["now": now, "pagesFull": pagesFull, "hostConcurrency": request.hostConcurrency ?? 0]) {
                try db.cachedStatement(sql: "UPDATE frontier SET state = 'leased', worker = ?, lease_until = ? WHERE url = ?")
                    .execute(arguments: [request.worker, request.until.timeIntervalSince1970, row["url"]])
                let entry = Self.entry(row)
                // The host's next request waits for the delay, or for its
                // pacing after push backs when that is longer.
                try db.cachedStatement(sql: """
                    INSERT INTO hosts (host, next_at, leased_at) VALUES (:host, :now + :delay, :now)
                    ON CONFLICT (host) DO UPDATE SET next_at = :now + MAX(:delay, backoff), lease_gap = :now - leased_at,
                        leased_at = :now
                    """).execute(arguments: ["host": row["host"], "now": now, "delay": request.hostDelay(for: entry.kind)])
                return .leased(entry)
            }
            // Nothing ready: over when nothing is queued or leased, else wait
            // for the earliest retry time, host pause or lease expiry.
            let until = try Double.fetchOne(db, sql: """
                SELECT MIN(t) FROM (
                    SELECT MIN(not_before) AS t FROM frontier WHERE state = 'queued' AND not_before > :now
                    UNION ALL
                    SELECT MIN(lease_until) FROM frontier WHERE state = 'leased'
                    UNION ALL
                    SELECT MIN(next_at) FROM hosts WHERE next_at > :now
                        AND host IN (SELECT host FROM frontier WHERE state = 'queued'))
                """, arguments: ["now": now])
            let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frontier WHERE state IN ('queued', 'leased')") ?? 0
            return pending == 0 ? .finished : .wait(until: until.map(Date.init(timeIntervalSince1970:)))
        }
    }

    package func renewLeases(_ urls: [String], worker: String, until: Date) async throws {
        try await write { db in
            for url in urls {
                try db.execute(sql: """
                    UPDATE frontier SET lease_until = ? WHERE url = ? AND state = 'leased' AND worker = ?
                    """, arguments: [until.timeIntervalSince1970, url, worker])
            }
        }
    }

    package func complete(_ entry: FrontierEntry, worker: String, report: PageLoadReport, aliases: [String],
                         discovered: [FrontierEntry], skipped: [PageLoadReport], links: [PageLink]) async throws -> [PageLoadReport] {
        try await write { db in
            var stored: [PageLoadReport] = []
            if try Self.store(report, kind: entry.kind, worker: worker, in: db) {
                stored.append(report)
                let insertLink = try db.cachedStatement(sql: """
                    INSERT INTO links (source, target, href, fragment, text, rel, element) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """)
                for link in links {
                    try insertLink.execute(arguments: [link.source, link.target, link.href, link.fragment, link.text,
                                                       link.rel, link.element])
                }
            }
            try db.cachedStatement(sql: "UPDATE frontier SET state = 'done', attempts = ?, worker = ? WHERE url = ?")
                .execute(arguments: [report.attempts, worker, entry.url])
            if report.wasLoaded && !HostPacing.isPushBack(report.status) {
                try Self.pace(entry.host, onlyWhenSlowed: true, in: db) { pacing, _ in pacing.answered() }
            }
            let added = try Self.insert(aliases.map { FrontierEntry(url: $0, depth: entry.depth, parent: entry.parent) },
                                        state: "done", in: db)
            for alias in added {
                try db.execute(sql: "UPDATE frontier SET alias_of = ? WHERE url = ?", arguments: [entry.url, alias.url])
            }
            _ = try Self.insert(discovered, state: "queued", in: db)
            for skip in skipped {
                // A link answered from `RecentChecks` is a link checked, not a page.
                let skippedEntry = FrontierEntry(url: skip.url, depth: skip.depth, parent: skip.parent,
                                            kind: skip.checkedWith == nil ? .page : .external)
                let added = try Self.insert([skippedEntry], state: "done", in: db)
                if !added.isEmpty, try Self.store(skip, kind: skippedEntry.kind, worker: worker, in: db) { stored.append(skip) }
            }
            return stored
        }
    }

    package func pushBack(host: String, retryAfter: Double?, at now: Date) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO hosts (host, next_at) VALUES (?, 0) ON CONFLICT (host) DO NOTHING", arguments: [host])
            let pacing = try Self.pace(host, onlyWhenSlowed: false, in: db) { $0.pushedBack(retryAfter: retryAfter, at: now.timeIntervalSince1970, leaseGap: $1) }
            try db.execute(sql: "UPDATE hosts SET next_at = MAX(next_at, ?) WHERE host = ?",
                           arguments: [now.timeIntervalSince1970 + pacing.interval, host])
        }
    }

    /// Changes the pacing of `host` with `change`, when it has a row (and
    /// is slowed down, with `onlyWhenSlowed`); returns it as changed.
    @discardableResult
    private static func pace(_ host: String, onlyWhenSlowed: Bool, in db: Database,
                             _ change: (inout HostPacing, _ leaseGap: Double) -> Void) throws -> HostPacing {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT backoff, too_fast, answers, push_backs, widest, widened_at, lease_gap FROM hosts WHERE host = ? AND (backoff > 0 OR NOT ?)
            """), arguments: [host, onlyWhenSlowed]) else { return HostPacing() }
        var pacing = HostPacing(interval: row[0], tooFast: row[1], answers: row[2], pushBacks: row[3], widest: row[4],
                                widenedAt: row[5])
        change(&pacing, row[6])
        try db.cachedStatement(sql: """
            UPDATE hosts SET backoff = ?, too_fast = ?, answers = ?, push_backs = ?, widest = ?, widened_at = ? WHERE host = ?
            """).execute(arguments: [pacing.interval, pacing.tooFast, pacing.answers, pacing.pushBacks, pacing.widest,
                                     pacing.widenedAt, host])
        return pacing
    }

    package func hostStatistics() async throws -> [HostStatistics] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT h.host, h.backoff, h.too_fast, h.answers, h.push_backs, h.widest, h.widened_at,
                       (SELECT COUNT(*) FROM frontier f JOIN reports r ON r.url = f.url
                        WHERE f.host = h.host AND r.outcome NOT IN ('skipped', 'blocked'))
                FROM hosts h WHERE h.push_backs > 0 ORDER BY h.host
                """).map { row in
                HostStatistics(host: row[0], requests: row[7],
                               pacing: HostPacing(interval: row[1], tooFast: row[2], answers: row[3], pushBacks: row[4],
                                                  widest: row[5], widenedAt: row[6]))
            }
        }
    }

    package func retry(_ entry: FrontierEntry, notBefore: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE frontier SET state = 'queued', attempts = ?, not_before = ? WHERE url = ?",
                           arguments: [entry.attempts, notBefore.timeIntervalSince1970, entry.url])
        }
    }

    package func releaseLeases() async throws {
        try await write { db in
            try db.execute(sql: "UPDATE frontier SET state = 'queued' WHERE state = 'leased'")
        }
    }

    package func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport] {
        try await write { db in
            let entries = try Row.fetchAll(db, sql: """
                SELECT url, depth, parent, attempts, kind FROM frontier WHERE state = 'queued' ORDER BY depth, seq
                """).map(Self.entry)
            var stored: [PageLoadReport] = []
            for entry in entries {
                let report = PageLoadReport.skipped(entry, reason)
                if try Self.store(report, kind: entry.kind, worker: nil, in: db) { stored.append(report) }
                try db.execute(sql: "UPDATE frontier SET state = 'done' WHERE url = ?", arguments: [entry.url])
            }
            return stored
        }
    }

    package func reports(after position: Int64, limit: Int, includingRequests: Bool) async throws -> [StoredReport] {
        let requests = includingRequests ? "requests" : "NULL"
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT seq, json, \(requests) AS requests FROM reports WHERE seq > ? ORDER BY seq LIMIT ?
                """, arguments: [position, limit]).map { row in
                StoredReport(position: row["seq"], report: try PageLoadReport(json: row["json"], requests: row["requests"]))
            }
        }
    }

    package func linkGraph() async throws -> LinkGraph {
        try await read { db in
            var graph = LinkGraph()
            let rows = try Row.fetchCursor(db, sql: """
                SELECT source, target, href, fragment, text, rel, element FROM links ORDER BY seq
                """)
            while let row = try rows.next() {  // by column index: a name is looked up anew in every row
                graph.links.append(PageLink(source: row[0], target: row[1], href: row[2], fragment: row[3], text: row[4],
                                            rel: row[5], element: row[6]))
            }
            for row in try Row.fetchAll(db, sql: "SELECT url, alias_of FROM frontier WHERE alias_of IS NOT NULL") {
                graph.aliases[row["url"]] = row["alias_of"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT url, anchors FROM reports WHERE url IN (
                    SELECT COALESCE(frontier.alias_of, links.target) FROM links
                    LEFT JOIN frontier ON frontier.url = links.target WHERE links.fragment IS NOT NULL)
                """) {
                graph.anchors[row["url"]] = PageLoadReport.anchors(fromText: row["anchors"])
            }
            return graph
        }
    }

    package func counts() async throws -> CrawlCounts {
        try await read { db in
            var counts = CrawlCounts()
            counts.queued = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frontier WHERE state = 'queued'") ?? 0
            counts.leased = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frontier WHERE state = 'leased'") ?? 0
            counts.reported = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reports") ?? 0
            counts.loaded = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM reports WHERE outcome != 'skipped' AND kind != 'external'
                """) ?? 0
            counts.failed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reports WHERE \(CrawlCounts.failedOutcomes)") ?? 0
            counts.workers = try Row.fetchAll(db, sql: """
                SELECT worker, SUM(leased) AS leased, SUM(loaded) AS loaded, SUM(failed) AS failed FROM (
                    SELECT worker, 1 AS leased, 0 AS loaded, 0 AS failed FROM frontier WHERE state = 'leased'
                    UNION ALL
                    SELECT worker, 0, outcome != 'skipped', \(CrawlCounts.failedOutcomes) FROM reports
                    WHERE worker IS NOT NULL)
                GROUP BY worker ORDER BY worker
                """).map { WorkerCounts(worker: $0["worker"] ?? "", leased: $0["leased"], loaded: $0["loaded"], failed: $0["failed"]) }
            return counts
        }
    }

    /// The outcomes of a page that was loaded (all but `skipped`), as an SQL
    /// list: `lease` counts them from the `reports_counted` index.
    private static let loadedOutcomes = "(" + PageLoadReport.Outcome.allCases.filter { $0 != .skipped }
        .map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// `database.write`, its CPU time counted.
    private func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.write { [cpu] db in try cpu.measure { try updates(db) } }
    }

    /// `database.read`, its CPU time counted.
    private func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read { [cpu] db in try cpu.measure { try value(db) } }
    }

    /// Nothing to do: the file closes when the store is released.
    /// Does nothing: the file is closed when the store is released.
    public func close() async {}

    /// Every stored report, in the order stored, read a batch at a time as
    /// the sequence is iterated: memory holds one batch however many
    /// reports there are. `includingRequests` reads each report's requests
    /// (`PageLoadReport.requests`) too.
    public func storedReports(includingRequests: Bool = false) -> StoredReports {
        (self as any CrawlStore).storedReports(includingRequests: includingRequests)
    }

    private static func settings(in db: Database) throws -> CrawlSettings? {
        try String.fetchOne(db, sql: "SELECT json FROM settings WHERE id = 1").map {
            try JSONDecoder().decode(CrawlSettings.self, from: Data($0.utf8))
        }
    }

    /// Inserts the entries whose URL is new; returns them.
    private static func insert(_ entries: [FrontierEntry], state: String, in db: Database) throws -> [FrontierEntry] {
        guard !entries.isEmpty else { return [] }
        let insert = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO frontier (url, depth, parent, state, attempts, host, kind, seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM frontier))
            """)
        var added: [FrontierEntry] = []
        for entry in entries {
            try insert.execute(arguments: [entry.url, entry.depth, entry.parent, state, entry.attempts, entry.host,
                                           entry.kind.rawValue])
            if db.changesCount == 1 { added.append(entry) }
        }
        return added
    }

    /// Stores `report` unless one for its URL exists; returns whether it did.
    private static func store(_ report: PageLoadReport, kind: FrontierEntry.Kind, worker: String?, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO reports (url, outcome, json, worker, requests, kind, anchors) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [report.url, report.outcome.rawValue, report.jsonLine, worker, report.requestsJSON,
                                     kind == .external ? "external" : "page", report.anchorsText])
        return db.changesCount == 1
    }

    private static func entry(_ row: Row) -> FrontierEntry {
        FrontierEntry(url: row["url"], depth: row["depth"], parent: row["parent"], attempts: row["attempts"],
                      kind: (row["kind"] as String?).flatMap(FrontierEntry.Kind.init(rawValue:)) ?? .page)
    }
}
