import Foundation
import NavWatchCrawler

/// What `navwatch status` prints of a crawl's counts (`CrawlCounts`), for
/// people and as JSON.
package enum CrawlCountsText {
    /// `navwatch status`: the reports by tally, the leased and queued URLs,
    /// and a line per worker.
    package static func lines(_ counts: CrawlCounts) -> [String] {
        var lines = [
            "done \(counts.reported) (\(TallyText.text(counts.tallies, failed: counts.failed)))"
                + ", leased \(counts.leased), queued \(counts.queued)",
        ]
        if !counts.workers.isEmpty {
            let width = max(6, counts.workers.map(\.worker.count).max() ?? 0)
            func pad(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
            lines.append("\(pad("worker"))  leased  loaded checked  failed")
            for worker in counts.workers {
                lines.append(pad(worker.worker) + [worker.leased, worker.loaded, worker.checked, worker.failed]
                    .map { String(repeating: " ", count: max(0, 8 - String($0).count)) + String($0) }.joined())
            }
        }
        return lines
    }

    /// `navwatch status --json`: the same counts, keys sorted.
    package static func json(_ counts: CrawlCounts) -> String {
        var object: [String: Any] = [
            "done": counts.reported, "failed": counts.failed, "leased": counts.leased, "queued": counts.queued,
            "workers": counts.workers.map {
                ["worker": $0.worker, "leased": $0.leased, "loaded": $0.loaded, "checked": $0.checked, "failed": $0.failed]
                    as [String: Any]
            },
        ]
        for tally in PageLoadReport.Tally.allCases { object[tally.rawValue] = counts.tallies[tally] ?? 0 }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
