import Foundation
import Synchronization
import WebKitThread

/// The end of a crawl with `CrawlConfiguration.runs` above 1: loads every
/// rendered page that loaded again, in rounds (every page's second load,
/// then every page's third, ...), so that two loads of one page are never
/// back to back, and adds each load's timings to the page's stored report
/// (`PageLoadReport.addRun`).
///
/// A load that does not finish adds nothing. What the store holds decides
/// what is left, so a crawl stopped during the rounds finishes them when
/// run again, and a finished crawl run again loads nothing. The workers of
/// a shared crawl each repeat the pages they loaded in this run.
package enum RepeatedRuns {
    /// Whether views keep a memory cache while each page is loaded `runs`
    /// times: only for one load, so that each of several loads fetches
    /// what a first visit does (`navwatch URL --runs` and a crawl's alike).
    package static func keepsMemoryCache(runs: Int) -> Bool {
        runs == 1
    }

    /// Loads the pages of `store` that have fewer than `runs` runs (of
    /// those in `only`, when given), with `loaders` loaders that
    /// `makeLoader` prepares (closed at the end), each page given `timeout`;
    /// a load starts while the late windows of at most `openWindows` of
    /// the loader's last pages are open, as a crawl worker's
    /// (`Crawler.storesWhileLoading`). `progress` hears the loads done and
    /// the loads in all, after each.
    static func run(store: any CrawlStore, runs: Int, only: Set<String>? = nil, loaders: Int, openWindows: Int,
                    timeout: Duration,
                    progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in },
                    makeLoader: @escaping @Sendable () async throws -> PageLoader) async throws {
        let reports = try await store.allReports(includingRequests: false).filter { report in
            report.outcome == .ok && report.checkedWith == nil && report.rendered != false && (report.runs?.count ?? 1) < runs
                && only?.contains(report.url) != false
        }
        guard !reports.isEmpty else { return }
        let total = reports.reduce(0) { $0 + runs - ($1.runs?.count ?? 1) }
        let done = LoadCount()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let count = min(loaders, reports.count)
            for worker in 0..<count {
                group.addTask {
                    let loader = try await makeLoader()
                    defer { Task { @WebKitActor in loader.close() } }
                    // Each loader takes every `count`-th page, each round in turn.
                    var mine = stride(from: worker, to: reports.count, by: count).map { reports[$0] }
                    // While a load's late window is open the next page loads; its timings are added once it closes.
                    var open: [(index: Int, timings: Task<PageLoadReport.Timings?, Never>)] = []
                    func close(_ load: (index: Int, timings: Task<PageLoadReport.Timings?, Never>)) async throws {
                        if let timings = await load.timings.value {
                            mine[load.index].addRun(timings)
                            try await store.updateTimings(of: mine[load.index])
                        }
                        progress(done.increment(), total)
                    }
                    for round in 2...runs {
                        for index in mine.indices where (mine[index].runs?.count ?? 1) < round {
                            try Task.checkCancellation()
                            open.append((index, try await load(mine[index], with: loader, timeout: timeout)))
                            // With as many open as the loader has views, the next load's commit closes the oldest.
                            while open.count > openWindows { try await close(open.removeFirst()) }
                        }
                        // A round ends before the next starts: two loads of a page never overlap.
                        while !open.isEmpty { try await close(open.removeFirst()) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Starts one more load of `report`'s page; once its late window has
    /// closed, the task gives its timings, or nil when it did not load.
    private static func load(_ report: PageLoadReport, with loader: PageLoader,
                             timeout: Duration) async throws -> Task<PageLoadReport.Timings?, Never> {
        let entry = FrontierEntry(url: report.url, depth: report.depth, parent: report.parent)
        let result = try await Task { @WebKitActor in try await loader.load(entry, timeout: timeout) }.value
        return Task {
            let completed = await result.completed().report
            return completed.outcome == .ok ? completed.timings : nil
        }
    }
}

/// The loads of the rounds done so far, by every loader.
private final class LoadCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more load; returns the count.
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
}
