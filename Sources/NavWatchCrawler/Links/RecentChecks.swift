import Foundation
import GRDB

/// Answers below 400 of links and resources outside the scope that were
/// checked lately, so that a crawl with `--recheck-after` need not ask for
/// them again.
///
/// A link whose last answer is younger than `maxAge` is not checked: its
/// report is made from that answer, with `checked_with` `cache` and
/// `fetched_at` the time of the check that answered. Answers of 400 or
/// more, failures and timeouts are never kept: such links are checked again.
package struct RecentChecks: Sendable {
    package struct Answer: Sendable, Equatable {
        package var status: Int
        package var finalURL: String?
        package var mime: String?
        package var checkedAt: Date
    }

    package private(set) var answers: [String: Answer] = [:]
    package var maxAge: TimeInterval

    package init(maxAge: TimeInterval) {
        self.maxAge = maxAge
    }

    /// Keeps the answers of the links checked in `reports` (the newest per URL).
    package mutating func add(_ reports: some Sequence<PageLoadReport>) {
        for report in reports {
            guard report.isExternal, let method = report.checkedWith, method != .cache, let status = report.status, status < 400
            else { continue }
            let answer = Answer(status: status, finalURL: report.finalURL, mime: report.mime, checkedAt: report.fetchedAt)
            if let kept = answers[report.url], kept.checkedAt >= answer.checkedAt { continue }
            answers[report.url] = answer
        }
    }

    /// The report of `entry` from its kept answer, when it is younger than `maxAge` at `now`.
    package func report(for entry: FrontierEntry, now: Date = Date()) -> PageLoadReport? {
        guard let answer = answers[entry.url], now.timeIntervalSince(answer.checkedAt) < maxAge else { return nil }
        var report = PageLoadReport(entry, outcome: .ok, fetchedAt: answer.checkedAt)
        report.status = answer.status
        report.finalURL = answer.finalURL
        report.mime = answer.mime
        report.checkedWith = .cache
        return report
    }

    // MARK: The cache file

    /// Adds the answers kept in the SQLite file at `path`; a missing file has none.
    package mutating func read(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let queue = try DatabaseQueue(path: path)
        let rows = try queue.read { db in
            try db.tableExists("checks") ? try Row.fetchAll(db, sql: "SELECT url, status, final_url, mime, checked_at FROM checks") : []
        }
        for row in rows {
            let answer = Answer(status: row["status"], finalURL: row["final_url"], mime: row["mime"],
                                checkedAt: Date(timeIntervalSince1970: row["checked_at"]))
            let url: String = row["url"]
            if let kept = answers[url], kept.checkedAt >= answer.checkedAt { continue }
            answers[url] = answer
        }
    }

    /// Writes every answer kept to the SQLite file at `path` (created when missing).
    package func write(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS checks (url TEXT PRIMARY KEY NOT NULL, status INTEGER NOT NULL, final_url TEXT,
                                                   mime TEXT, checked_at REAL NOT NULL)
                """)
            let upsert = try db.makeStatement(sql: """
                INSERT INTO checks (url, status, final_url, mime, checked_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (url) DO UPDATE SET status = excluded.status, final_url = excluded.final_url, mime = excluded.mime,
                    checked_at = excluded.checked_at WHERE excluded.checked_at > checks.checked_at
                """)
            for (url, answer) in answers {
                try upsert.execute(arguments: [url, answer.status, answer.finalURL, answer.mime, answer.checkedAt.timeIntervalSince1970])
            }
        }
    }
}
