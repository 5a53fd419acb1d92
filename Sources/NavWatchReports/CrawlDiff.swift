import Foundation
import NavWatchCrawler
import NavWatchSupport

/// What changed between two crawls of a site, page by page: pages added and
/// removed, outcome, redirect and title changes, pages that became slower,
/// problems new and fixed (`CrawlProblems`: broken links with their
/// referrers, page and console errors, orphans), and pictures that changed.
///
/// A page is a report of a URL loaded in a web view (not skipped, not
/// blocked, not an external link checked with HTTP); two crawls' pages are
/// matched by URL. Changes are ordered by URL, then by kind.
package struct CrawlDiff: Sendable, Equatable {
    /// When a page counts as slower.
    ///
    /// - A page loaded several times in both crawls (`--runs`) is slower
    ///   when its finish times are larger in the new crawl by a one-sided
    ///   Mann–Whitney U test (`MannWhitneyTest`) at p ≤ `level`, **and** its
    ///   median finish grew by more than both thresholds (by default 10 %
    ///   and 20 ms: `repeatedPercent`, `repeatedMilliseconds`). An unchanged
    ///   page is then called slower by chance in at most `level` of diffs
    ///   (less: the exact test is conservative).
    /// - Otherwise (one load on either side) it is slower when its time to
    ///   finish grew by more than both thresholds (by default 50 % and
    ///   500 ms: one load varies by tens of milliseconds from run to run,
    ///   more on a busy machine, so the change must be large both relatively
    ///   and absolutely).
    ///
    /// A threshold given (not nil) applies in both cases.
    package struct SlowerThresholds: Sendable, Equatable {
        /// Percent of the old time (median) it must grow by; nil: the case's default.
        package var percent: Double?
        /// Milliseconds it must grow by as well; nil: the case's default.
        package var milliseconds: Double?
        /// The significance level of the test, for pages loaded several times.
        package var level: Double

        package static let oncePercent = 50.0, onceMilliseconds = 500.0
        package static let repeatedPercent = 10.0, repeatedMilliseconds = 20.0
        package static let defaultLevel = 0.01

        package init(percent: Double? = nil, milliseconds: Double? = nil, level: Double = SlowerThresholds.defaultLevel) {
            self.percent = percent
            self.milliseconds = milliseconds
            self.level = level
        }

        /// The change if the page got slower from `before` to `after`; nil
        /// otherwise, and for pages loaded over different networks.
        func slower(_ before: PageLoadReport, _ after: PageLoadReport) -> (before: String, after: String)? {
            let old = Self.finishes(before), new = Self.finishes(after)
            guard !old.isEmpty, !new.isEmpty, before.network == after.network else { return nil }
            if old.count > 1, new.count > 1 {
                guard let test = MannWhitneyTest(before: old, after: new), test.pValue <= level,
                      let was = TimingSpread.Spread(old)?.median, let now = TimingSpread.Spread(new)?.median,
                      grew(was, now, percent ?? Self.repeatedPercent, milliseconds ?? Self.repeatedMilliseconds) else { return nil }
                return ("median \(was.millisecondsText) of \(old.count) runs",
                        "median \(now.millisecondsText) of \(new.count) runs; Mann-Whitney U \(test.u.plainText), "
                        + "p = \(CrawlDiff.probability(test.pValue))")
            }
            guard let was = before.timings.finish, let now = after.timings.finish,
                  grew(was, now, percent ?? Self.oncePercent, milliseconds ?? Self.onceMilliseconds) else { return nil }
            return (was.millisecondsText, now.millisecondsText)
        }

        private func grew(_ old: Double, _ new: Double, _ percent: Double, _ milliseconds: Double) -> Bool {
            new - old > milliseconds && new > old * (1 + percent / 100)
        }

        /// Every run's finish, or the one load's.
        static func finishes(_ report: PageLoadReport) -> [Double] {
            report.runs?.compactMap(\.finish) ?? report.timings.finish.map { [$0] } ?? []
        }
    }

    /// One change of one page (or, for a link problem, of one link target).
    package struct Change: Sendable, Equatable, Encodable {
        package enum Kind: String, Sendable, CaseIterable, Comparable, Encodable {
            /// A page only the new crawl loaded.
            case added
            /// A page only the old crawl loaded.
            case removed
            /// Outcome or status changed: `ok 200` → `http-error 404`.
            case outcome
            /// The redirect chain changed.
            case redirects
            case title
            /// The time to finish grew beyond both `SlowerThresholds`.
            case slower
            /// A problem only the new crawl has (`problem` says which kind).
            case new
            /// A problem only the old crawl has.
            case fixed
            /// The screenshots differ beyond the tolerance.
            case visual

            package static func < (lhs: Kind, rhs: Kind) -> Bool {
                allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
            }
        }

        /// The page, or the link target of a link problem.
        package var url: String
        package var kind: Kind
        /// The kind of problem of `new` and `fixed`.
        package var problem: CrawlProblem.Kind?
        /// What it was, one line; nil for `added`, `new`.
        package var before: String?
        /// What it is, one line; nil for `removed`, `fixed`.
        package var after: String?
        /// For link problems: the pages that link to the target (in the crawl that has the problem).
        package var referrers: [String] = []
        /// For `visual`: the file name of the difference image, in the directory the caller chose.
        package var image: String?

        /// Whether it is worse: a page removed or no longer ok, slower, a new problem, a picture changed.
        package var isRegression: Bool {
            switch kind {
            case .removed, .slower, .new, .visual: return true
            case .outcome: return after?.split(separator: " ").first.map(String.init) != PageLoadReport.Outcome.ok.rawValue
            case .added, .redirects, .title, .fixed: return false
            }
        }

        private enum CodingKeys: String, CodingKey {
            case url, kind = "change", problem, before, after, referrers, image, regression
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(kind, forKey: .kind)
            try container.encodeIfPresent(problem, forKey: .problem)
            try container.encode(before, forKey: .before)
            try container.encode(after, forKey: .after)
            if !referrers.isEmpty { try container.encode(referrers, forKey: .referrers) }
            try container.encodeIfPresent(image, forKey: .image)
            try container.encode(isRegression, forKey: .regression)
        }
    }

    /// A page whose screenshots differ: how much, and the difference image's file name.
    package struct VisualChange: Sendable, Equatable {
        package var url: String
        /// Percent of the pixels that differ.
        package var percent: Double
        package var image: String?

        package init(url: String, percent: Double, image: String?) {
            self.url = url
            self.percent = percent
            self.image = image
        }
    }

    package var changes: [Change]
    /// Pages each crawl loaded.
    package var pagesBefore: Int
    package var pagesAfter: Int

    /// The changes from the crawl of `oldReports` (with its link check
    /// `oldLinks`) to the crawl of `newReports`; `policy` rates the problems.
    package init(old oldReports: [PageLoadReport], _ oldLinks: LinkCheckResult,
                 new newReports: [PageLoadReport], _ newLinks: LinkCheckResult,
                 slower: SlowerThresholds = .init(), visual: [VisualChange] = [], policy: LinkPolicy = .init()) {
        let old = Self.pages(oldReports), new = Self.pages(newReports)
        var changes: [Change] = []
        for (url, report) in new where old[url] == nil {
            changes.append(Change(url: url, kind: .added, after: Self.state(report)))
        }
        for (url, report) in old where new[url] == nil {
            changes.append(Change(url: url, kind: .removed, before: Self.state(report)))
        }
        for (url, after) in new {
            guard let before = old[url] else { continue }
            if Self.state(before) != Self.state(after) {
                changes.append(Change(url: url, kind: .outcome, before: Self.state(before), after: Self.state(after)))
            }
            if Self.chain(before) != Self.chain(after) {
                changes.append(Change(url: url, kind: .redirects, before: Self.chain(before), after: Self.chain(after)))
            }
            if before.title != after.title {
                changes.append(Change(url: url, kind: .title, before: Self.quoted(before.title), after: Self.quoted(after.title)))
            }
            if let (was, now) = slower.slower(before, after) {
                changes.append(Change(url: url, kind: .slower, before: was, after: now))
            }
        }
        let problems = CrawlProblems(links: newLinks, reports: newReports, policy: policy)
            .compared(with: CrawlProblems(links: oldLinks, reports: oldReports, policy: policy))
        for found in problems.new {
            changes.append(Change(url: found.problem.url, kind: .new, problem: found.problem.kind, after: found.detail,
                                  referrers: found.referrers))
        }
        for found in problems.fixed {
            changes.append(Change(url: found.problem.url, kind: .fixed, problem: found.problem.kind, before: found.detail,
                                  referrers: found.referrers))
        }
        for change in visual {
            changes.append(Change(url: change.url, kind: .visual, after: String(format: "%.2f %% of pixels differ", change.percent),
                                  image: change.image))
        }
        self.changes = changes.sorted { a, b in
            if a.url != b.url { return a.url < b.url }
            if a.kind != b.kind { return a.kind < b.kind }
            if a.problem != b.problem { return (a.problem.map { CrawlProblem.Kind.allCases.firstIndex(of: $0)! } ?? -1)
                < (b.problem.map { CrawlProblem.Kind.allCases.firstIndex(of: $0)! } ?? -1) }
            return (a.before ?? a.after ?? "") < (b.before ?? b.after ?? "")
        }
        pagesBefore = old.count
        pagesAfter = new.count
        let pairs = new.compactMap { url, report in old[url].map { ($0, report) } }
        let timed = pairs.filter { before, after in before.network == after.network }
            .map { (SlowerThresholds.finishes($0.0).count, SlowerThresholds.finishes($0.1).count) }.filter { $0.0 > 0 && $0.1 > 0 }
        slowerRule = Self.rule(slower, runs: timed)
            + (timed.count < pairs.count && pairs.contains { $0.0.network != $0.1.network }
                ? " Pages loaded over different networks are not compared for speed." : "")
    }

    /// How pages were found slower, one sentence: with a warning where the
    /// crawls' runs are too few for the test ever to reach its level.
    package var slowerRule: String

    /// The sentence for pages whose finishes were counted `runs` (old, new).
    private static func rule(_ slower: SlowerThresholds, runs: [(Int, Int)]) -> String {
        let repeated = runs.filter { $0.0 > 1 && $0.1 > 1 }
        guard !repeated.isEmpty else {
            let percent = slower.percent ?? SlowerThresholds.oncePercent, ms = slower.milliseconds ?? SlowerThresholds.onceMilliseconds
            return "Slower: a page's time to finish grew by more than \(percent.plainText) % and \(ms.plainText) ms "
                + "(one load per page; crawl with --runs 5 or more to test differences)."
        }
        let percent = slower.percent ?? SlowerThresholds.repeatedPercent, ms = slower.milliseconds ?? SlowerThresholds.repeatedMilliseconds
        var text = "Slower: finish times larger by a one-sided Mann-Whitney U test at p ≤ \(probability(slower.level)), "
            + "with a median more than \(percent.plainText) % and \(ms.plainText) ms higher"
        if repeated.count < runs.count { text += " (pages loaded once on a side: by more than their thresholds)" }
        let tooFew = repeated.filter { MannWhitneyTest.minimumPValue(before: $0.0, after: $0.1) > slower.level }
        if let fewest = tooFew.max(by: { MannWhitneyTest.minimumPValue(before: $0.0, after: $0.1)
                                         < MannWhitneyTest.minimumPValue(before: $1.0, after: $1.1) }) {
            let best = MannWhitneyTest.minimumPValue(before: fewest.0, after: fewest.1)
            let pages = tooFew.count == repeated.count
                ? "With \(fewest.0) and \(fewest.1) runs no page can reach"
                : "\(tooFew.count) of \(repeated.count) pages, with as few as \(fewest.0) and \(fewest.1) runs, cannot reach"
            text += ". \(pages) p ≤ \(probability(slower.level)) (the smallest p is \(probability(best))): use more --runs"
        }
        return text + "."
    }

    /// `0.0003`, `0.01`: two significant digits.
    static func probability(_ p: Double) -> String {
        String(format: "%.2g", p)
    }

    /// The changes that are regressions.
    package var regressions: [Change] { changes.filter(\.isRegression) }

    /// "9 changes to 7 URLs, 5 regressions; 6 pages before, 6 after".
    package var summary: String {
        let urls = Set(changes.map(\.url)).count, regressions = self.regressions.count
        return "\(changes.count) change\(changes.count == 1 ? "" : "s") to \(urls) URL\(urls == 1 ? "" : "s")"
            + ", \(regressions) regression\(regressions == 1 ? "" : "s")"
            + "; \(pagesBefore) page\(pagesBefore == 1 ? "" : "s") before, \(pagesAfter) after"
    }

    /// The pages both crawls have screenshots of, with the two file names, by URL.
    package static func screenshotPairs(old: [PageLoadReport], new: [PageLoadReport]) -> [(url: String, old: String, new: String)] {
        let oldPages = pages(old), newPages = pages(new)
        return newPages.keys.sorted().compactMap { url in
            guard let newName = newPages[url]?.screenshot, let oldName = oldPages[url]?.screenshot else { return nil }
            return (url, oldName, newName)
        }
    }

    /// The pages of a crawl, by URL: reports of URLs loaded in a web view.
    private static func pages(_ reports: [PageLoadReport]) -> [String: PageLoadReport] {
        Dictionary(reports.filter { $0.wasLoaded && $0.checkedWith == nil }.map { ($0.url, $0) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// `ok 200`, `http-error 404`, `timeout`.
    private static func state(_ report: PageLoadReport) -> String {
        report.outcome.rawValue + (report.status.map { " \($0)" } ?? "")
    }

    /// `302 /a → 301 /b → /c`, or `none`.
    private static func chain(_ report: PageLoadReport) -> String {
        guard !report.redirects.isEmpty else { return "none" }
        return (report.redirects.map { "\($0.status) \($0.url)" } + [report.finalURL ?? "?"]).joined(separator: " → ")
    }

    private static func quoted(_ title: String?) -> String {
        title.map { "\"\($0)\"" } ?? "none"
    }
}
