import Foundation
import NavWatch
import NavWatchCrawler
import Synchronization

/// The live progress line on standard error (only when it is a terminal):
/// pages done, queued, failed, pages per second, and the ETA when
/// `--max-pages` bounds the crawl.
final class CrawlProgress: Sendable {
    private struct State {
        var done = 0
        var failed = 0
        var skipped = 0
    }

    private let state = Mutex(State())
    private let maxPages: Int?
    private let started = ContinuousClock.now
    private let enabled = isatty(STDERR_FILENO) == 1

    init(maxPages: Int?, alreadyDone: Int) {
        self.maxPages = maxPages
        state.withLock { $0.done = alreadyDone }
    }

    func record(_ report: PageLoadReport) {
        let line = state.withLock { state -> String in
            if report.wasLoaded { state.done += 1 } else { state.skipped += 1 }
            if [.failed, .timeout, .crashed].contains(report.outcome) { state.failed += 1 }
            let seconds = max(0.001, (ContinuousClock.now - started).seconds)
            let rate = Double(state.done) / seconds
            var line = "\(state.done) pages, \(state.skipped) skipped, \(state.failed) failed, "
                + String(format: "%.1f pages/s", rate)
            if let maxPages, rate > 0 {
                line += String(format: ", ETA %.0f s", Double(max(0, maxPages - state.done)) / rate)
            }
            return line
        }
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8)) }
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

/// The closing summary of a crawl, for people.
struct CrawlSummaryText {
    let text: String

    init(_ summary: CrawlSummary) {
        let reports = summary.reports
        let loaded = reports.filter(\.wasLoaded)
        var lines: [String] = []
        let outcomes = Dictionary(grouping: reports, by: \.outcome.rawValue).mapValues(\.count)
        lines.append("crawl: \(loaded.count) pages loaded, \(reports.count - loaded.count) skipped in "
                     + String(format: "%.1f s", summary.elapsed.seconds))
        lines.append("  outcomes: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        let statuses = Dictionary(grouping: loaded.compactMap(\.status), by: { $0 }).mapValues(\.count)
        if !statuses.isEmpty {
            lines.append("  status: " + statuses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        let loadTimes = loaded.compactMap { $0.timings.finish }.sorted()
        if !loadTimes.isEmpty {
            lines.append(String(format: "  time to load: p50 %.0f ms, p95 %.0f ms",
                                Self.percentile(loadTimes, 0.5), Self.percentile(loadTimes, 0.95)))
        }
        let pageErrors = loaded.filter { ($0.pageErrorCount ?? 0) > 0 }.count
        let consoleErrors = loaded.filter { ($0.console?.errors ?? 0) > 0 }.count
        if pageErrors + consoleErrors > 0 {
            lines.append("  javascript: \(pageErrors) pages with page errors, \(consoleErrors) with console errors"
                         + " (navwatch report lists them)")
        }
        let seconds = max(0.001, summary.elapsed.seconds)
        lines.append(String(format: "  %.1f pages/s, %d retries", Double(loaded.count) / seconds, summary.retries))
        text = lines.joined(separator: "\n") + "\n"
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

/// The closing summary's lines on links: how many, how many broken, and where to look.
struct LinkSummaryText {
    let text: String

    init(_ result: LinkCheckResult, db: String) {
        let links = result.targets.reduce(0) { $0 + $1.referrers.count }
        var line = "  links: \(links) to \(result.targets.count) targets; broken: \(result.brokenInScope.count)"
        line += ", external \(result.brokenExternal.count), missing fragments \(result.missingFragments.count)"
        line += "; orphan pages \(result.orphans.count)"
        var lines = [line]
        if !result.broken.isEmpty || !result.orphans.isEmpty {
            lines.append("  see: navwatch links --db \(db) --broken")
        }
        text = lines.joined(separator: "\n") + "\n"
    }
}
