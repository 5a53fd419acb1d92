import Foundation

/// The statements that keep a crawl's frontier, written once for both crawl
/// stores: `dialect` spells the little that SQLite and PostgreSQL spell
/// differently. The decisions taken in Swift between two statements are
/// `FrontierRules`; the stores run both, each in its own transactions.
///
/// Times are seconds since 1970 on the store's clock (the worker's for
/// SQLite, the server's for PostgreSQL). The tables, in both schemas:
/// - `frontier`: a row per URL the crawl has seen, in `state` queued, leased
///   (to `worker` until `lease_until`) or done; `seq` numbers the rows in the
///   order added; a queued entry is due at `not_before`.
/// - `hosts`: a row per host leased or pushed back: it may be asked again at
///   `next_at`; its `HostPacing` (`backoff` is the interval), when it was
///   last leased (`leased_at`) and the time between its last two leases
///   (`lease_gap`).
package struct FrontierSQL: Sendable {
    package let dialect: SQLDialect

    package init(_ dialect: SQLDialect) {
        self.dialect = dialect
    }

    private var frontier: SQLText { dialect.table("frontier") }
    private var hosts: SQLText { dialect.table("hosts") }
    private var reports: SQLText { dialect.table("reports") }

    /// The columns of a `FrontierEntry`, as `FrontierEntry(url:depth:parent:attempts:storedKind:)` takes them.
    private static let entryColumns: SQLText = "url, depth, parent, attempts, kind"

    // MARK: Leasing

    /// Whether a frontier row is a link or resource to check, not a page to load (`FrontierEntry.Kind.isCheck`).
    private static let isCheck: SQLStatement = """
        kind \(SQLText(in: FrontierEntry.Kind.self, where: \.isCheck))
        """

    /// What `maxPages` is checked against, in one statement (so one snapshot:
    /// a page completed meanwhile counts once, as loaded or as leased): the
    /// columns `loaded`, `leased` and `externalLeft` of `FrontierRules.pageBudget`.
    /// - Pages loaded: reports of pages `Tally.loaded` (not links or resources checked, not skipped or blocked).
    /// - Pages leased: entries that are not links or resources to check, leased until `now` or later.
    /// - Links and resources to check left: entries queued or leased.
    ///
    /// Without `countingLoaded`, `loaded` is 0: a store that keeps the count
    /// itself (`loadedPageCount` once, then its own completions) spares the
    /// count, which takes time in proportion to the pages loaded.
    package func pageCounts(now: Double, countingLoaded: Bool = true) -> SQLStatement {
        let loaded: SQLStatement = countingLoaded ? "(\(loadedPageCount))" : "0"
        return """
        SELECT \(loaded),
               (SELECT COUNT(*) FROM \(frontier) WHERE state = 'leased' AND lease_until >= \(now) AND NOT \(Self.isCheck)),
               (SELECT COUNT(*) FROM \(frontier) WHERE \(Self.isCheck) AND state IN ('queued', 'leased'))
        """
    }

    /// The reports of pages loaded: `Tally.loaded`, stored for an entry of kind `page`.
    package var loadedPageCount: SQLStatement {
        "SELECT COUNT(*) FROM \(reports) WHERE outcome \(Self.loadedOutcomes) AND kind = 'page'"
    }

    /// Where an entry ready to lease is found: queued and due (`not_before`
    /// reached), or leased with its lease expired (its worker died).
    package enum ReadyEntries: CaseIterable, Sendable {
        case queued, expiredLeases
    }

    /// The entry of `entries` to lease next, as the columns of a
    /// `FrontierEntry`, then `host`, its `HostPacing.interval` (0 for a host
    /// not slowed down) and `seq`; no row when none is ready. The entry:
    /// - is on a host that may be asked again (its `next_at` reached);
    /// - is a link or resource to check, when `onlyExternal` (past `maxPages`);
    /// - is on a host with fewer than `hostConcurrency` live leases, when set;
    /// - is the shallowest, and the oldest of those (`depth`, then `seq`);
    /// - is locked for the transaction, passing over rows other workers hold.
    ///
    /// One statement for each of `ReadyEntries`, the store leasing the
    /// earlier of their answers (`FrontierRules.earliest`): each reads the
    /// `(state, depth, seq)` index in order and stops at the first entry
    /// ready, where one statement for both would sort every queued entry
    /// at every lease.
    package func nextReady(_ entries: ReadyEntries, now: Double, onlyExternal: Bool, hostConcurrency: Int?) -> SQLStatement {
        let ready: SQLStatement = switch entries {
        case .queued: "state = 'queued' AND not_before <= \(now)"
        case .expiredLeases: "state = 'leased' AND lease_until < \(now)"
        }
        let external: SQLStatement = onlyExternal ? "AND \(Self.isCheck)" : ""
        let hostsFull: SQLStatement = hostConcurrency.map { limit in
            """
            AND host NOT IN (SELECT host FROM \(frontier) WHERE state = 'leased' AND lease_until >= \(now)
                             GROUP BY host HAVING COUNT(*) >= \(limit))
            """
        } ?? ""
        return """
            SELECT \(Self.entryColumns), host,
                   COALESCE((SELECT backoff FROM \(hosts) WHERE \(hosts).host = \(frontier).host), 0), seq FROM \(frontier)
            WHERE \(ready)
              AND NOT EXISTS (SELECT 1 FROM \(hosts) WHERE \(hosts).host = \(frontier).host AND \(hosts).next_at > \(now))
              \(external)
              \(hostsFull)
            ORDER BY depth, seq LIMIT 1 \(dialect.lockSkippingLocked)
            """
    }

    /// Leases `url` to `worker` until `until`.
    package func lease(_ url: String, to worker: String, until: Double) -> SQLStatement {
        "UPDATE \(frontier) SET state = 'leased', worker = \(worker), lease_until = \(until) WHERE url = \(url)"
    }

    /// Pauses `host` after a lease at `now`:
    /// - its next request waits for `delay`, or for its pacing after push
    ///   backs (`backoff`) when that is longer;
    /// - the time since its previous lease is kept as `lease_gap`, what was
    ///   too fast should it push back at the crawl's own pace.
    package func hostLeased(_ host: String, now: Double, delay: Double) -> SQLStatement {
        """
        INSERT INTO \(hosts) (host, next_at, leased_at) VALUES (\(host), \(now + delay), \(now))
        ON CONFLICT (host) DO UPDATE SET next_at = \(now) + \(dialect.greatest)(\(delay), \(hosts).backoff),
            lease_gap = \(now) - \(hosts).leased_at, leased_at = \(now)
        """
    }

    /// When nothing is ready: the columns `pending` and `earliest` of
    /// `FrontierRules.nothingReady`.
    /// - Pending: entries queued or leased.
    /// - Earliest: the first time after `now` something may be ready: a
    ///   retry's time, a lease's expiry, or the end of the pause of a host
    ///   with queued entries; NULL when there is none.
    package func nothingReady(now: Double) -> SQLStatement {
        """
        SELECT (SELECT COUNT(*) FROM \(frontier) WHERE state IN ('queued', 'leased')),
               (SELECT MIN(t) FROM (
                    SELECT MIN(not_before) AS t FROM \(frontier) WHERE state = 'queued' AND not_before > \(now)
                    UNION ALL
                    SELECT MIN(lease_until) FROM \(frontier) WHERE state = 'leased'
                    UNION ALL
                    SELECT MIN(next_at) FROM \(hosts) WHERE next_at > \(now)
                        AND host IN (SELECT host FROM \(frontier) WHERE state = 'queued')) AS waits)
        """
    }

    /// Extends `worker`'s leases on `urls` to `until`; leases it no longer
    /// holds (expired and leased again, or put back) are left alone.
    package func renewLeases(_ urls: [String], worker: String, until: Double) -> SQLStatement {
        "UPDATE \(frontier) SET lease_until = \(until) WHERE state = 'leased' AND worker = \(worker) AND url \(oneOf: urls)"
    }

    // MARK: Ending a lease

    /// Marks `url` done by `worker` after `attempts` attempts.
    package func complete(_ url: String, attempts: Int, worker: String) -> SQLStatement {
        "UPDATE \(frontier) SET state = 'done', attempts = \(attempts), worker = \(worker) WHERE url = \(url)"
    }

    /// Marks `urls`, redirect targets, as covered by the report of `url`.
    package func aliases(_ urls: [String], of url: String) -> SQLStatement {
        "UPDATE \(frontier) SET alias_of = \(url) WHERE url \(oneOf: urls)"
    }

    /// Puts `url` back in the queue after `attempts` attempts, due at `notBefore`.
    package func retry(_ url: String, attempts: Int, notBefore: Double) -> SQLStatement {
        "UPDATE \(frontier) SET state = 'queued', attempts = \(attempts), not_before = \(notBefore) WHERE url = \(url)"
    }

    /// Puts every leased entry back in the queue, due as it was.
    package var releaseLeases: SQLStatement {
        "UPDATE \(frontier) SET state = 'queued' WHERE state = 'leased'"
    }

    /// Every queued entry, as the columns of a `FrontierEntry`, in lease
    /// order, locked for the transaction (passing over rows other workers hold).
    package var queued: SQLStatement {
        "SELECT \(Self.entryColumns) FROM \(frontier) WHERE state = 'queued' ORDER BY depth, seq \(dialect.lockSkippingLocked)"
    }

    /// Marks `url` done without a worker (`skipQueued`).
    package func skip(_ url: String) -> SQLStatement {
        "UPDATE \(frontier) SET state = 'done' WHERE url = \(url)"
    }

    /// The URLs at depth 0, in the order added.
    package var seeds: SQLStatement {
        "SELECT url FROM \(frontier) WHERE depth = 0 ORDER BY seq"
    }

    // MARK: Host pacing

    /// Adds `host` to the hosts, not paused, unless it is there.
    package func addHost(_ host: String) -> SQLStatement {
        "INSERT INTO \(hosts) (host, next_at) VALUES (\(host), 0) ON CONFLICT (host) DO NOTHING"
    }

    /// The `HostPacing` of `host` and then its `lease_gap`, the row locked for
    /// the transaction; no row when `host` has none, or with `onlyWhenSlowed`,
    /// when it is not slowed down.
    package func pacing(of host: String, onlyWhenSlowed: Bool) -> SQLStatement {
        let slowed: SQLStatement = onlyWhenSlowed ? "AND backoff > 0" : ""
        return """
            SELECT \(Self.pacingColumns), lease_gap FROM \(hosts) WHERE host = \(host) \(slowed) \(dialect.lock)
            """
    }

    /// Saves `pacing` as the pacing of `host`.
    package func setPacing(_ pacing: HostPacing, of host: String) -> SQLStatement {
        """
        UPDATE \(hosts) SET backoff = \(pacing.interval), too_fast = \(pacing.tooFast), answers = \(pacing.answers),
            push_backs = \(pacing.pushBacks), widest = \(pacing.widest), widened_at = \(pacing.widenedAt) WHERE host = \(host)
        """
    }

    /// Pauses `host` until `until`, unless it is paused longer already.
    package func pause(_ host: String, until: Double) -> SQLStatement {
        "UPDATE \(hosts) SET next_at = \(dialect.greatest)(next_at, \(until)) WHERE host = \(host)"
    }

    /// The hosts that pushed back, ordered by host: `host`, the columns of
    /// its `HostPacing`, and then the pages loaded and links checked on it.
    package var hostStatistics: SQLStatement {
        """
        SELECT host, \(Self.pacingColumns),
               (SELECT COUNT(*) FROM \(frontier) f JOIN \(reports) r ON r.url = f.url
                WHERE f.host = \(hosts).host AND r.outcome \(Self.askedOutcomes))
        FROM \(hosts) WHERE push_backs > 0 ORDER BY host
        """
    }

    /// The columns of a `HostPacing`, in the order of its initializer.
    private static let pacingColumns: SQLText = "backoff, too_fast, answers, push_backs, widest, widened_at"

    // MARK: Counting

    /// The frontier's entries queued and leased, in one row.
    package var frontierCounts: SQLStatement {
        """
        SELECT (SELECT COUNT(*) FROM \(frontier) WHERE state = 'queued'),
               (SELECT COUNT(*) FROM \(frontier) WHERE state = 'leased')
        """
    }

    /// The outcomes of a page loaded or a link checked (neither skipped nor blocked), as an SQL list.
    private static let askedOutcomes = SQLText(in: PageLoadReport.Outcome.self) {
        PageLoadReport.Tally(outcome: $0, isCheck: true) == .checked
    }

    /// The outcomes of a page loaded (`Tally.loaded`), as an SQL list:
    /// `pageCounts` counts them from the reports' (outcome, kind) index.
    private static let loadedOutcomes = SQLText(in: PageLoadReport.Outcome.self) {
        PageLoadReport.Tally(outcome: $0, isCheck: false) == .loaded
    }
}

extension FrontierEntry {
    /// An entry as `FrontierSQL` reads it; an unknown or missing kind is a page.
    package init(url: String, depth: Int, parent: String?, attempts: Int, storedKind: String?) {
        self.init(url: url, depth: depth, parent: parent, attempts: attempts,
                  kind: storedKind.flatMap(Kind.init(rawValue:)) ?? .page)
    }
}
