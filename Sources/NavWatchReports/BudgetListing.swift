import Foundation
import NavWatchSupport
import NavWatchCrawler

/// Every budget breach of a crawl, by page, in the formats `navwatch
/// budgets` writes: text, Markdown, JUnit XML (one test case per page and
/// limit) and JSON.
package struct BudgetListing {
    /// The formats the listing is written in.
    package enum Format: String, Sendable, CaseIterable {
        case text, markdown, junit, json, github
    }

    /// One page the budgets apply to, with its limits and breaches.
    package struct Page {
        var url: String
        var limits: [(metric: BudgetMetric, limit: Double, budget: Budget)]
        var breaches: [BudgetBreach]
        /// Measures the page has none of (an engine without LCP, a page without a load event).
        var unmeasured: [BudgetMetric]
    }

    package let pages: [Page]
    /// How much a breach matters (`[severity] budget` of the policy file).
    package let severity: LinkPolicy.Severity

    package init(_ reports: some Sequence<PageLoadReport>, budgets: BudgetFile, policy: LinkPolicy = .init()) {
        severity = policy.severity(of: .budget, cause: nil)
        pages = reports.filter(BudgetFile.applies).map { report in
            let limits = budgets.limits(for: report)
            return Page(url: report.url, limits: limits, breaches: budgets.breaches(of: report),
                        unmeasured: limits.map(\.metric).filter { $0.measured(in: report) == nil })
        }
    }

    package var breaches: [BudgetBreach] { pages.flatMap(\.breaches) }

    package func render(_ format: Format) -> String {
        switch format {
        case .text: return text
        case .markdown: return markdown
        case .junit: return junit
        case .json: return json
        case .github:
            return breaches.map { GitHubAnnotations.line(severity, title: "budget", message: "\($0.url): \(Self.line($0))") + "\n" }.joined()
        }
    }

    /// "3 breaches on 2 of 40 pages".
    package var summary: String {
        let breaches = self.breaches
        let pagesOver = Set(breaches.map(\.url)).count
        return "\(breaches.count) budget breach\(breaches.count == 1 ? "" : "es") on \(pagesOver) of \(pages.count) page\(pages.count == 1 ? "" : "s")"
    }

    private static func line(_ breach: BudgetBreach) -> String {
        breach.line + (breach.pattern.map { " (budget \($0))" } ?? "")
    }

    package var text: String { TerminalText.lines(textLines) }

    private var textLines: [String] {
        var lines: [String] = []
        for page in pages where !page.breaches.isEmpty {
            lines.append(page.url)
            lines += page.breaches.map { "  " + Self.line($0) }
        }
        lines.append(summary)
        return lines
    }

    package var markdown: String {
        var lines = ["## Budgets", "", summary + ".", ""]
        let breaches = self.breaches
        if !breaches.isEmpty {
            lines += ["| page | budget | measured | limit |", "|---|---|---|---|"]
            for breach in breaches {
                lines.append("| `\(Markdown.cell(breach.url))` | \(Markdown.cell(breach.budget)) | "
                             + "\(breach.metric.shown(breach.measured)) | \(breach.metric.shown(breach.limit)) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One test case per page and limit: a failure for a breach, skipped where the page has no measure.
    package var junit: String {
        let cases = pages.reduce(0) { $0 + $1.limits.count }
        let failures = breaches.count
        let skipped = pages.reduce(0) { $0 + $1.unmeasured.count }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="navwatch budgets" tests="\#(cases)" failures="\#(failures)" skipped="\#(skipped)">"#,
            #"  <testsuite name="budgets" tests="\#(cases)" failures="\#(failures)" skipped="\#(skipped)">"#,
        ]
        for page in pages {
            for metric in page.limits.map(\.metric) {
                let opening = #"    <testcase classname="budgets.\#(metric.key)" name="\#(HTML.escape(page.url))""#
                if let breach = page.breaches.first(where: { $0.metric == metric }) {
                    lines.append(opening + ">")
                    lines.append(#"      <failure type="budget" message="\#(HTML.escape(Self.line(breach)))"/>"#)
                    lines.append("    </testcase>")
                } else if page.unmeasured.contains(metric) {
                    lines.append(opening + #"><skipped message="not measured on this page"/></testcase>"#)
                } else {
                    lines.append(opening + "/>")
                }
            }
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"pages": N, "breaches": [{"url", "budget", "measured", "limit", "pattern"}]}`.
    package var json: String {
        struct Document: Encodable {
            var pages: Int
            var breaches: [BudgetBreach]
        }
        return JSONText.of(Document(pages: pages.count, breaches: breaches)) + "\n"
    }
}
