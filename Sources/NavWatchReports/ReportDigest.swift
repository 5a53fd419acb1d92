import Foundation
import NavWatchCrawler

/// What `HTMLReport` shows above its table of all pages, folded from the
/// reports one at a time in the order stored: counters, chart buckets and
/// the few pages each table lists. Its size does not grow with the crawl.
package struct ReportDigest {
    /// Outcomes, statuses, loaded pages and load-time percentiles.
    private(set) var summary = CrawlSummary()
    /// Requests and bytes of the loaded pages.
    private(set) var requests = 0
    private(set) var bytes = 0
    /// Loaded pages per `HTMLReport.loadTimeBuckets` bucket, and one for the rest.
    private(set) var loadTimeCounts = [Int](repeating: 0, count: HTMLReport.loadTimeBuckets.count + 1)
    /// Bytes per resource type, over the loaded pages.
    private(set) var weight: [String: Int] = [:]
    private(set) var slowest = Leaders(limit: 10)
    private(set) var heaviest = Leaders(limit: 10)
    /// Loaded pages that are not ok: the first 50 (all of equal rank), and how many.
    private(set) var failing = Leaders(limit: 50)
    /// Pages with page errors or console errors: most page errors first, then most console errors.
    private(set) var withErrors = Leaders(limit: 50)
    /// Loaded pages that were redirected: the first 50 (all of equal rank), and how many.
    private(set) var redirected = Leaders(limit: 50)
    /// Pages loaded more than once (`--runs`): widest range of finish times first.
    private(set) var varied = Leaders(limit: 50)
    /// The network profiles the loaded pages loaded over (`--network`), by name, in the order first met.
    private(set) var networks: [NetworkProfile] = []
    /// Each metric the report charts, over the loaded pages (`MetricDistribution.metrics`).
    private(set) var metrics = MetricDistribution.metrics.map(MetricDistribution.init)
    private(set) var firstFetched: Date?
    private(set) var lastFetched: Date?

    /// Links and resources not followed (`Tally.skipped` or `blocked`), by why: a skip reason, or the outcome.
    private(set) var notFollowed: [String: Int] = [:]

    /// Adds a report; one of a link or resource checked is only counted
    /// (`CrawlSummary.checked`): the report is about the pages loaded.
    package mutating func add(_ report: PageLoadReport) {
        summary.add(report)
        switch report.tally {
        case .checked: return
        case .skipped, .blocked:
            notFollowed[report.skipReason?.rawValue ?? report.outcome.rawValue, default: 0] += 1
            return
        case .loaded: break
        }
        firstFetched = min(firstFetched ?? report.fetchedAt, report.fetchedAt)
        lastFetched = max(lastFetched ?? report.fetchedAt, report.fetchedAt)
        var kept = report
        kept.requests = []  // the tables show none; the data element reads them again
        requests += max(report.requests.count, report.resources.count)
        bytes += report.resources.transferBytes
        if let finish = report.timings.finish {
            let bucket = HTMLReport.loadTimeBuckets.firstIndex { finish < $0 } ?? HTMLReport.loadTimeBuckets.count
            loadTimeCounts[bucket] += 1
            slowest.offer(kept, rank: [finish])
        }
        for (type, resources) in report.resources.byType { weight[type, default: 0] += resources.bytes }
        heaviest.offer(kept, rank: [Double(report.resources.transferBytes)])
        if report.outcome != .ok { failing.offer(kept, rank: []) }
        let pageErrors = report.pageErrorCount ?? 0, consoleErrors = report.console?.errors ?? 0
        if pageErrors > 0 || consoleErrors > 0 { withErrors.offer(kept, rank: [Double(pageErrors), Double(consoleErrors)]) }
        if !report.redirects.isEmpty { redirected.offer(kept, rank: []) }
        if let finish = report.spread?.finish, finish.count > 1 { varied.offer(kept, rank: [finish.max - finish.min]) }
        if let network = report.network, !networks.contains(network) { networks.append(network) }
        for index in metrics.indices { metrics[index].add(kept) }
    }

    /// The `limit` reports of highest rank offered (ranks compared
    /// lexicographically), highest first; of equal ranks, the first offered.
    /// `offered` counts them all.
    package struct Leaders {
        let limit: Int
        private(set) var offered = 0
        private var ranked: [(rank: [Double], report: PageLoadReport)] = []

        init(limit: Int) { self.limit = limit }

        var reports: [PageLoadReport] { ranked.map(\.report) }

        mutating func offer(_ report: PageLoadReport, rank: [Double]) {
            offered += 1
            if ranked.count == limit, let last = ranked.last, !last.rank.lexicographicallyPrecedes(rank) { return }
            let index = ranked.firstIndex { $0.rank.lexicographicallyPrecedes(rank) } ?? ranked.endIndex
            ranked.insert((rank, report), at: index)
            if ranked.count > limit { ranked.removeLast() }
        }
    }
}
