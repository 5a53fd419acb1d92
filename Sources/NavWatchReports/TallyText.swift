import Foundation
import NavWatchCrawler

/// A crawl's reports counted by `PageLoadReport.Tally`, in the one sentence
/// the closing summary, the live progress line and `navwatch status` share:
/// `12 pages loaded, 3 checked, 40 skipped, 0 blocked, 1 failed`.
package enum TallyText {
    /// The sentence for `tallies` (a tally missing counts 0) and `failed`,
    /// the reports loaded or checked that failed.
    package static func text(_ tallies: [PageLoadReport.Tally: Int], failed: Int) -> String {
        PageLoadReport.Tally.allCases.map { tally in
            let count = tallies[tally] ?? 0
            return tally == .loaded ? "\(count) page\(count == 1 ? "" : "s") loaded" : "\(count) \(tally.rawValue)"
        }.joined(separator: ", ") + ", \(failed) failed"
    }

    /// The live progress line: the sentence, the pages loaded per second
    /// since this process started (`rate`), and with `--max-pages` the
    /// seconds left at that rate: `…, 1 failed, 4.2 pages/s, ETA 31 s`.
    package static func progress(_ tallies: [PageLoadReport.Tally: Int], failed: Int, rate: Double,
                                 maxPages: Int?) -> String {
        var line = text(tallies, failed: failed) + String(format: ", %.1f pages/s", rate)
        if let maxPages, rate > 0 {
            line += String(format: ", ETA %.0f s", Double(max(0, maxPages - (tallies[.loaded] ?? 0))) / rate)
        }
        return line
    }
}
