import Foundation
import NavWatchCrawler
import NavWatchSupport

/// A crawl's closing summary as Markdown for the job summary of a GitHub
/// Actions run, which navwatch appends to the file `GITHUB_STEP_SUMMARY`
/// names: the figures, the problems (the new ones against a baseline, with
/// the known and fixed counts), errors first, with the pages that link to
/// each broken target, and the budgets.
package struct StepSummary {
    /// The variable GitHub Actions sets to the summary file's path.
    package static let variable = "GITHUB_STEP_SUMMARY"
    /// Problems listed in a table at most.
    package static let listed = 20

    package var summary: CrawlSummary
    package var links: LinkCheckResult
    /// Every problem of the crawl, or the new ones against a baseline.
    package var problems: [FoundProblem]
    package var baseline: (name: String, known: Int, fixed: [FoundProblem])?
    package var budgets: BudgetListing?
    package var db: String

    /// The summary of a crawl of `db`: its figures, link check, problems and budgets.
    package init(summary: CrawlSummary, links: LinkCheckResult, problems: [FoundProblem],
                 baseline: (name: String, known: Int, fixed: [FoundProblem])? = nil, budgets: BudgetListing?, db: String) {
        self.summary = summary
        self.links = links
        self.problems = problems
        self.baseline = baseline
        self.budgets = budgets
        self.db = db
    }

    package var markdown: String {
        let notOK = summary.loaded - (summary.outcomes[.ok] ?? 0)
        let median = summary.loadTime(percentile: 50)?.millisecondsText ?? "–"
        let p95 = summary.loadTime(percentile: 95)?.millisecondsText ?? "–"
        var lines = [
            "## navwatch crawl", "",
            "| pages loaded | ok | not ok | links not followed | broken links | broken resources | missing fragments "
                + "| missing text fragments | median load | 95th percentile |",
            "|---|---|---|---|---|---|---|---|---|---|",
            "| \(summary.loaded) | \(summary.outcomes[.ok] ?? 0) | \(notOK) | \(summary.skipped + summary.blocked) | "
                + "\(links.brokenInScope.count + links.brokenExternal.count) | \(links.brokenResources.count) | "
                + "\(links.missingFragments.count) | "
                + "\(links.missingTextFragments.count) | \(median) | \(p95) |",
            "",
        ]
        let errors = problems.filter { $0.severity == .error }.count, warnings = problems.count - errors
        let counts = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        if let baseline {
            lines.append("**\(problems.count) new problem\(problems.count == 1 ? "" : "s")** (\(counts)), \(baseline.known) known, "
                         + "\(baseline.fixed.count) fixed, against the baseline `\(Markdown.cell(baseline.name))`.")
        } else {
            lines.append("**\(problems.count) problem\(problems.count == 1 ? "" : "s")** (\(counts)).")
        }
        let ordered = problems.filter { $0.severity == .error } + problems.filter { $0.severity == .warning }
        lines += table(baseline == nil ? "Problems" : "New problems", ordered)
        if let baseline { lines += table("Fixed", baseline.fixed) }
        if ordered.count > Self.listed || (baseline?.fixed.count ?? 0) > Self.listed {
            lines += ["", "The rest: `navwatch links --db \(Markdown.cell(db)) --broken`."]
        }
        if let budgets { lines += ["", "### Budgets", "", budgets.summary + "."] }
        return lines.joined(separator: "\n") + "\n"
    }

    private func table(_ title: String, _ problems: [FoundProblem]) -> [String] {
        guard !problems.isEmpty else { return [] }
        var lines = ["", "### \(title)", "", "| | problem | URL | detail | linked from |", "|---|---|---|---|---|"]
        for found in problems.prefix(Self.listed) {
            let mark = title == "Fixed" ? "✅" : found.severity == .error ? "❌" : "⚠️"
            let referrers = found.referrers.prefix(5).map { "`\(Markdown.cell($0))`" }.joined(separator: "<br>")
                + (found.referrers.count > 5 ? "<br>and \(found.referrers.count - 5) more" : "")
            lines.append("| \(mark) | \(found.problem.kind.rawValue) | `\(Markdown.cell(found.problem.url))` | "
                         + "\(Markdown.cell(found.detail)) | \(referrers) |")
        }
        return lines
    }

    /// Appends the summary to the file `GITHUB_STEP_SUMMARY` names, when it names one.
    package func append() {
        guard let path = ProcessInfo.processInfo.environment[Self.variable], !path.isEmpty,
              let file = FileHandle(forWritingAtPath: path) ?? {
                  FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil
              }() else { return }
        file.seekToEndOfFile()
        file.write(Data(markdown.utf8))
        try? file.close()
    }
}
