import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchReports
import Synchronization

/// The live progress line on standard error (only when it is a terminal):
/// the reports so far by tally (`TallyText`, as the closing summary counts
/// them), pages loaded per second, and the ETA when `--max-pages` bounds
/// the crawl (it counts pages loaded, not links or resources checked).
final class CrawlProgress: Sendable {
    private struct State {
        var tallies: [PageLoadReport.Tally: Int] = [:]
        var failed = 0
    }

    private let state: Mutex<State>
    private let maxPages: Int?
    private let loadedBefore: Int
    private let started = ContinuousClock.now
    private let enabled = isatty(STDERR_FILENO) == 1

    /// - Parameter before: what the crawl had stored before this process (`--resume`).
    init(maxPages: Int?, before: CrawlCounts) {
        self.maxPages = maxPages
        loadedBefore = before.loaded
        state = Mutex(State(tallies: before.tallies, failed: before.failed))
    }

    func record(_ report: PageLoadReport) {
        let line = state.withLock { state -> String in
            state.tallies[report.tally, default: 0] += 1
            if report.outcome.isFailure { state.failed += 1 }
            let rate = Double((state.tallies[.loaded] ?? 0) - loadedBefore) / max(0.001, (ContinuousClock.now - started).seconds)
            return TallyText.progress(state.tallies, failed: state.failed, rate: rate, maxPages: maxPages)
        }
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8)) }
    }

    /// The rounds of `--runs`: the loads done and in all.
    func repeated(_ done: Int, of total: Int) {
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[Krepeating pages: \(done) of \(total) loads".utf8)) }
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
