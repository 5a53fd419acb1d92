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
}
