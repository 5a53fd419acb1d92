import Foundation

/// What changed between two crawls of a site, page by page: pages added and
/// removed, outcome, redirect and title changes, pages that became slower,
/// problems new and fixed (`CrawlProblems`: broken links with their
/// referrers, page and console errors, orphans), and pictures that changed.
///
/// A page is a report of a URL loaded in a web view (not skipped, not
/// blocked, not an external link checked with HTTP); two crawls' pages are
/// matched by URL. Changes are ordered by URL, then by kind.
package struct CrawlDiff: Sendable, Equatable {
    /// When a page counts as slower: its time to finish grew by more than
    /// both thresholds. A crawl measures each page once, and one sample
    /// varies by tens of milliseconds from run to run (more on a busy
    /// machine), so a change must be large both relatively and absolutely.
    package struct SlowerThresholds: Sendable, Equatable {
        /// Percent of the old time.
        package var percent: Double
        package var milliseconds: Double

        package init(percent: Double = 50, milliseconds: Double = 500) {
            self.percent = percent
            self.milliseconds = milliseconds
        }

        func isSlower(_ old: Double, _ new: Double) -> Bool {
            new - old > milliseconds && new > old * (1 + percent / 100)
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
            if let was = before.timings.finish, let now = after.timings.finish, slower.isSlower(was, now) {
                changes.append(Change(url: url, kind: .slower, before: Self.milliseconds(was), after: Self.milliseconds(now)))
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

    private static func milliseconds(_ value: Double) -> String {
        "\(Int(value.rounded())) ms"
    }
}
