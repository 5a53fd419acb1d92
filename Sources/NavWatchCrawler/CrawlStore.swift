import Foundation

/// Where a crawl keeps its frontier and its reports. Every change that
/// matters for a resume happens in one transaction, so a crawl killed at any
/// point (even with `kill -9`) resumes with no page lost and none reported
/// twice. SQLite implements it today; a shared server database can follow.
public protocol CrawlStore: Sendable {
    /// Adds the entries whose URL the crawl has not seen; returns those it added.
    func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry]

    /// The crawl's seeds: every entry at depth 0, in the order added.
    func seeds() async throws -> [String]

    /// Up to `limit` queued entries ready at `now`, shallowest and oldest first.
    func ready(limit: Int, now: Date) async throws -> [FrontierEntry]

    /// The earliest time a queued entry becomes ready, if any is queued.
    func nextReadyTime() async throws -> Date?

    /// Marks `entry` as being loaded. Returns false if it was not queued.
    func lease(_ entry: FrontierEntry) async throws -> Bool

    /// In one transaction: stores `report` and marks its URL done; marks
    /// `aliases` (redirect targets) as seen; adds `discovered` links to the
    /// frontier and stores `skipped` reports for links the crawl will not
    /// load. Returns the reports stored, in order (skipped ones already seen
    /// are left out).
    func complete(_ entry: FrontierEntry, report: PageLoadReport, aliases: [String],
                  discovered: [FrontierEntry], skipped: [PageLoadReport]) async throws -> [PageLoadReport]

    /// Puts a leased entry back, to be tried again at `notBefore`.
    func retry(_ entry: FrontierEntry, notBefore: Date) async throws

    /// Returns every leased entry to the queue (for a resume after a crash).
    func releaseLeases() async throws

    /// Stores a skipped report for every queued entry (for `--max-pages`).
    func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport]

    /// The number of stored reports that were loads, not skips.
    func loadedCount() async throws -> Int

    /// Every stored report, in the order stored.
    func allReports() async throws -> [PageLoadReport]

    func counts() async throws -> CrawlCounts
}

/// How far a crawl has got.
public struct CrawlCounts: Sendable, Equatable {
    public var queued = 0
    public var leased = 0
    public var reported = 0
    public var failed = 0
}
