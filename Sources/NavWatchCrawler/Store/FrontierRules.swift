import Foundation

/// The frontier's decisions taken in Swift, between the statements of
/// `FrontierSQL`, once for both crawl stores. Pure: no I/O.
package enum FrontierRules {
    /// What `maxPages` leaves to lease.
    package enum PageBudget: Equatable {
        /// Any ready entry.
        case open
        /// Only links to check: the pages are used up.
        case onlyExternal
        /// Nothing: the lease's outcome is this.
        case spent(LeaseOutcome)
    }

    /// What `maxPages` leaves to lease, from `FrontierSQL.pageCounts`:
    /// - pages loaded plus pages leased may not exceed `maxPages`; links to
    ///   check do not count, and are still leased when the pages are used up;
    /// - when the pages are used up and no link is left to check, the crawl
    ///   is over once no page is leased, and until then waits for the leases.
    package static func pageBudget(maxPages: Int, loaded: Int, leased: Int, externalLeft: Int) -> PageBudget {
        guard loaded + leased >= maxPages else { return .open }
        guard externalLeft == 0 else { return .onlyExternal }
        return .spent(leased == 0 ? .finished : .wait(until: nil))
    }

    /// Of the entries ready to lease, one found by each of
    /// `FrontierSQL.ReadyEntries`, the one to lease: the shallowest, then
    /// the oldest (`depth`, then `seq`); nil when there is none.
    package static func earliest<Candidate>(_ candidates: [Candidate],
                                            by order: (Candidate) -> (depth: Int, seq: Int64)) -> Candidate? {
        candidates.min { order($0) < order($1) }
    }

    /// The lease's outcome when no entry is ready, from
    /// `FrontierSQL.nothingReady` (`earliest` on the worker's clock):
    /// - the crawl is over when nothing is queued or leased;
    /// - else it waits until `earliest`, or, when nil, until a lease ends.
    package static func nothingReady(pending: Int, earliest: Date?) -> LeaseOutcome {
        pending == 0 ? .finished : .wait(until: earliest)
    }

    /// Whether completing the entry of `report` eases its host's pacing
    /// (`HostPacing.answered`): its page was loaded or its link checked, and
    /// the answer was no push back.
    package static func easesHost(_ report: PageLoadReport) -> Bool {
        report.wasLoaded && !HostPacing.isPushBack(report.status)
    }

    /// What `CrawlStore.complete` adds to the frontier besides the report
    /// of `entry`:
    /// - its aliases (redirect targets), done at its depth and with its
    ///   parent, covered by its report (`alias_of`);
    /// - the links discovered, queued;
    /// - the links skipped, done, each with its report; a link answered from
    ///   `RecentChecks` or from the rendered page's own request is a link
    ///   or resource checked, not a page.
    ///
    /// Only URLs new to the frontier are added, in the order of `rows` (the
    /// order they are numbered in; a URL given twice counts the first time),
    /// and only those added get the rest.
    package struct Completion {
        /// The entries to add, each in its state: aliases, discovered, skipped.
        package let rows: [(entry: FrontierEntry, state: FrontierState)]
        private let aliasCount: Int
        private let skipped: SkippedLinks

        package init(_ entry: FrontierEntry, aliases: [String], discovered: [FrontierEntry], skipped: SkippedLinks) {
            let aliasEntries = aliases.map { FrontierEntry(url: $0, depth: entry.depth, parent: entry.parent) }
            var rows: [(entry: FrontierEntry, state: FrontierState)] = []
            rows.reserveCapacity(aliasEntries.count + discovered.count + skipped.count)
            rows += aliasEntries.lazy.map { ($0, .done) }
            rows += discovered.lazy.map { ($0, .queued) }
            rows += skipped.indices.lazy.map { (skipped.entry(at: $0), .done) }
            self.rows = rows
            aliasCount = aliases.count
            self.skipped = skipped
        }

        /// The aliases among `added` (indexes in `rows`, ascending).
        package func aliases(among added: [Int]) -> [String] {
            added.prefix { $0 < aliasCount }.map { rows[$0].entry.url }
        }

        /// The reports of the skipped links among `added` (indexes in
        /// `rows`, ascending), with their positions in `skipped` and their
        /// entries' kind, in order; each made as it is iterated, not kept
        /// in an array: a page can have a skipped link per link.
        package func skippedReports(among added: [Int])
            -> some Sequence<(position: Int, report: PageLoadReport, kind: FrontierEntry.Kind)> {
            let firstSkipped = rows.count - skipped.count
            return added.lazy.filter { $0 >= firstSkipped }.map { [skipped, rows] in
                ($0 - firstSkipped, skipped[$0 - firstSkipped], rows[$0].entry.kind)
            }
        }
    }
}

/// Where a frontier entry is: its `state` column.
package enum FrontierState: String, Sendable {
    /// Waiting to be leased, from its `not_before`.
    case queued
    /// A worker's until its lease ends.
    case leased
    /// Reported, or covered by another entry's report.
    case done
}
