import Foundation
import GRDB

/// A `CrawlStore` in one SQLite file (WAL mode), through GRDB.
public final class SQLiteCrawlStore: CrawlStore {
    private let database: DatabaseQueue

    /// Opens or creates the crawl database at `path`, creating its schema.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in
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
    }

    public func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry] {
        try await database.write { db in try Self.insert(entries, state: "queued", in: db) }
    }

    public func seeds() async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT url FROM frontier WHERE depth = 0 ORDER BY seq")
        }
    }

    public func ready(limit: Int, now: Date) async throws -> [FrontierEntry] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT url, depth, parent, attempts FROM frontier
                WHERE state = 'queued' AND not_before <= ? ORDER BY depth, seq LIMIT ?
                """, arguments: [now.timeIntervalSince1970, limit]).map(Self.entry)
        }
    }

    public func nextReadyTime() async throws -> Date? {
        try await database.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(not_before) FROM frontier WHERE state = 'queued'")
                .map(Date.init(timeIntervalSince1970:))
        }
    }

    public func lease(_ entry: FrontierEntry) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "UPDATE frontier SET state = 'leased' WHERE url = ? AND state = 'queued'",
                           arguments: [entry.url])
            return db.changesCount == 1
        }
    }

    public func complete(_ entry: FrontierEntry, report: PageLoadReport, aliases: [String],
                         discovered: [FrontierEntry], skipped: [PageLoadReport]) async throws -> [PageLoadReport] {
        try await database.write { db in
            var stored: [PageLoadReport] = []
            if try Self.store(report, in: db) { stored.append(report) }
            try db.execute(sql: "UPDATE frontier SET state = 'done', attempts = ? WHERE url = ?",
                           arguments: [report.attempts, entry.url])
            _ = try Self.insert(aliases.map { FrontierEntry(url: $0, depth: entry.depth, parent: entry.parent) },
                                state: "done", in: db)
            _ = try Self.insert(discovered, state: "queued", in: db)
            for skip in skipped {
                let added = try Self.insert([FrontierEntry(url: skip.url, depth: skip.depth, parent: skip.parent)],
                                            state: "done", in: db)
                if !added.isEmpty, try Self.store(skip, in: db) { stored.append(skip) }
            }
            return stored
        }
    }

    public func retry(_ entry: FrontierEntry, notBefore: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE frontier SET state = 'queued', attempts = ?, not_before = ? WHERE url = ?",
                           arguments: [entry.attempts, notBefore.timeIntervalSince1970, entry.url])
        }
    }

    public func releaseLeases() async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE frontier SET state = 'queued' WHERE state = 'leased'")
        }
    }

    public func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport] {
        try await database.write { db in
            let entries = try Row.fetchAll(db, sql: "SELECT url, depth, parent, attempts FROM frontier WHERE state = 'queued' ORDER BY depth, seq")
                .map(Self.entry)
            var stored: [PageLoadReport] = []
            for entry in entries {
                let report = PageLoadReport.skipped(entry, reason)
                if try Self.store(report, in: db) { stored.append(report) }
                try db.execute(sql: "UPDATE frontier SET state = 'done' WHERE url = ?", arguments: [entry.url])
            }
            return stored
        }
    }

    public func loadedCount() async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reports WHERE outcome != 'skipped'") ?? 0
        }
    }

    public func allReports() async throws -> [PageLoadReport] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT json FROM reports ORDER BY seq").map {
                try PageLoadReport.decoder.decode(PageLoadReport.self, from: Data($0.utf8))
            }
        }
    }

    public func counts() async throws -> CrawlCounts {
        try await database.read { db in
            var counts = CrawlCounts()
            counts.queued = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frontier WHERE state = 'queued'") ?? 0
            counts.leased = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM frontier WHERE state = 'leased'") ?? 0
            counts.reported = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reports") ?? 0
            counts.failed = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM reports WHERE outcome IN ('failed', 'timeout', 'crashed')
                """) ?? 0
            return counts
        }
    }

    /// Inserts the entries whose URL is new; returns them.
    private static func insert(_ entries: [FrontierEntry], state: String, in db: Database) throws -> [FrontierEntry] {
        var added: [FrontierEntry] = []
        for entry in entries {
            try db.execute(sql: """
                INSERT OR IGNORE INTO frontier (url, depth, parent, state, attempts, seq)
                VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM frontier))
                """, arguments: [entry.url, entry.depth, entry.parent, state, entry.attempts])
            if db.changesCount == 1 { added.append(entry) }
        }
        return added
    }

    /// Stores `report` unless one for its URL exists; returns whether it did.
    private static func store(_ report: PageLoadReport, in db: Database) throws -> Bool {
        try db.execute(sql: "INSERT OR IGNORE INTO reports (url, outcome, json) VALUES (?, ?, ?)",
                       arguments: [report.url, report.outcome.rawValue, report.jsonLine])
        return db.changesCount == 1
    }

    private static func entry(_ row: Row) -> FrontierEntry {
        FrontierEntry(url: row["url"], depth: row["depth"], parent: row["parent"], attempts: row["attempts"])
    }
}
