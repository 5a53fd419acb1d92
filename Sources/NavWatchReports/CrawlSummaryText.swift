import Foundation
import NavWatchCrawler
import NavWatchSupport

/// Lines of a crawl's closing summary, made as an array so that navwatch's
/// line breaks are the only ones: strangers' text in them is not yet inert.
package protocol SummaryLines {
    /// The lines, without their line breaks.
    var lines: [String] { get }
}

extension SummaryLines {
    /// The lines as written: each inert, each ended by a line break.
    package var text: String { TerminalText.lines(lines) }
}

/// The closing summary of a crawl, for people.
package struct CrawlSummaryText: SummaryLines {
    package let lines: [String]

    package init(_ summary: CrawlSummary) {
        var lines: [String] = []
        lines.append("crawl: " + TallyText.text(summary.tallies, failed: summary.failed) + " in "
                     + String(format: "%.1f s", summary.elapsed.seconds))
        let outcomes = summary.outcomes.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }
        lines.append("  outcomes: " + outcomes.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        if !summary.statuses.isEmpty {
            lines.append("  status: " + summary.statuses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", "))
        }
        if let p50 = summary.loadTime(percentile: 50), let p95 = summary.loadTime(percentile: 95) {
            lines.append("  time to load: p50 \(p50.millisecondsText), p95 \(p95.millisecondsText)")
        }
        if summary.pagesWithPageErrors + summary.pagesWithConsoleErrors > 0 {
            lines.append("  javascript: \(summary.pagesWithPageErrors) pages with page errors, "
                         + "\(summary.pagesWithConsoleErrors) with console errors (navwatch report lists them)")
        }
        if !summary.renderReasons.isEmpty {
            func counted(_ rendered: Bool) -> String {
                let reasons = summary.renderReasons[rendered] ?? [:]
                let total = reasons.values.reduce(0, +)
                let detail = reasons.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
                return "\(total)" + (detail.isEmpty ? "" : " (\(detail))")
            }
            lines.append("  rendered: \(counted(true)); read from HTML: \(counted(false))")
        }
        if summary.resourcesChecked > 0 {
            lines.append("  resources: \(summary.resourcesChecked) checked (images, style sheets, scripts, media), "
                         + "\(summary.resourcesFailing) not ok")
        }
        if summary.pagesWithLinksNotRead > 0 {
            lines.append("  links not read: \(summary.pagesWithLinksNotRead) page\(summary.pagesWithLinksNotRead == 1 ? "" : "s") "
                         + "whose HTML was not parsed (links_not_read in its report; --render auto renders them)")
        }
        let seconds = max(0.001, summary.elapsed.seconds)
        lines.append(String(format: "  %.1f pages/s, %d retries", Double(summary.loaded) / seconds, summary.retries))
        self.lines = lines
    }
}

/// The closing summary's lines on links: how many, how many broken, and where to look.
package struct LinkSummaryText: SummaryLines {
    package let lines: [String]

    package init(_ result: LinkCheckResult, db: String) {
        let links = result.targets.reduce(0) { $0 + $1.referrers.count }
        var line = "  links: \(links) to \(result.targets.count) targets; broken: \(result.brokenInScope.count)"
        line += ", external \(result.brokenExternal.count), resources \(result.brokenResources.count)"
            + ", missing fragments \(result.missingFragments.count)"
            + ", missing text fragments \(result.missingTextFragments.count)"
        line += "; orphan pages \(result.orphans.count)"
        var lines = [line]
        if !result.broken.isEmpty || !result.orphans.isEmpty {
            lines.append("  see: navwatch links --db \(db) --broken")
        }
        self.lines = lines
    }
}

/// The closing summary's lines on a crawl compared with `--baseline`: the
/// counts of new, known and fixed problems, then the new and the fixed ones
/// (ten of each at most), with the pages that link to a broken target.
package struct BaselineSummaryText: SummaryLines {
    package static let listed = 10

    package let lines: [String]

    package init(_ compared: (new: [FoundProblem], known: [FoundProblem], fixed: [FoundProblem]), baseline: String) {
        var lines = ["  baseline \(baseline): \(compared.new.count) new problem\(compared.new.count == 1 ? "" : "s"), "
                     + "\(compared.known.count) known, \(compared.fixed.count) fixed"]
        for (word, problems) in [("new", compared.new), ("fixed", compared.fixed)] {
            for found in problems.prefix(Self.listed) {
                let referrers = found.referrers.isEmpty ? "" : " (linked from " + found.referrers.prefix(3).joined(separator: ", ")
                    + (found.referrers.count > 3 ? ", …" : "") + ")"
                lines.append("    \(word) \(found.problem.kind.rawValue) \(found.problem.url): \(found.detail)\(referrers)")
            }
            if problems.count > Self.listed { lines.append("    … and \(problems.count - Self.listed) more \(word)") }
        }
        self.lines = lines
    }
}

/// The closing summary's lines on the hosts that pushed back (429, 503): a
/// line each, with the pages and links loaded or checked there, the push
/// backs, and how far apart the crawl kept their requests; nothing when no
/// host pushed back.
package struct HostSummaryText: SummaryLines {
    package let lines: [String]

    package init(_ hosts: [HostStatistics]) {
        lines = hosts.map { host in
            let pacing = host.pacing
            let paced = FrontierEntry.pacedHost(host.host)
            let name = paced.checksLinks ? "\(paced.name) (links checked)" : paced.name
            return "  host \(name): \(host.requests) request\(host.requests == 1 ? "" : "s"), pushed back \(pacing.pushBacks) "
                + "time\(pacing.pushBacks == 1 ? "" : "s"); requests kept \(Self.seconds(pacing.widest)) apart at most, "
                + (pacing.interval > 0 ? "\(Self.seconds(pacing.interval)) at the end" : "at the crawl's own pace at the end")
        }
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }
}
