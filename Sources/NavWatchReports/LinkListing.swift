import Foundation
import NavWatchSupport
import NavWatchCrawler

/// The link check of a crawl in the formats of `navwatch links`: a to-do
/// list, JSON Lines, CSV, Markdown for a pull-request comment, JUnit XML for
/// CI, GitHub workflow commands (an annotation per problem).
package struct LinkListing {
    /// The formats the listing is written in.
    package enum Format: String, Sendable, CaseIterable {
        case text, jsonl, csv, markdown, junit, github
    }

    /// The targets to list (all of them, or the broken ones), ordered.
    package let targets: [CheckedTarget]
    package let orphans: [String]
    /// Pages whose links were not read: no listing can say what they link to.
    package let linksNotRead: [LinkCheckResult.UnreadPage]
    /// The broken targets and orphans as problems, rated by the policy.
    package let problems: [FoundProblem]

    package init(_ result: LinkCheckResult, brokenOnly: Bool, policy: LinkPolicy = .init()) {
        targets = brokenOnly ? result.broken : result.targets
        orphans = result.orphans
        linksNotRead = result.linksNotRead
        problems = CrawlProblems(links: result, reports: [], policy: policy).found
    }

    package func render(_ format: Format) -> String {
        switch format {
        case .text: return text
        case .jsonl: return jsonl
        case .csv: return csv
        case .markdown: return markdown
        case .junit: return junit
        case .github: return GitHubAnnotations.problems(problems)
        }
    }

    // MARK: Text

    /// Broken targets with every link to them; other targets on one line each.
    package var text: String { TerminalText.lines(textLines) }

    private var textLines: [String] {
        var lines: [String] = []
        for target in targets {
            let mark = target.problem != nil ? "✘" : (target.report.map { !$0.wasLoaded } ?? true) ? "-" : "✔"
            let external = switch (target.isExternal, target.isResource) {
            case (false, false): ""
            case (true, false): "  (external)"
            case (false, true): "  (resource)"
            case (true, true): "  (external resource)"
            }
            if target.problem == nil {
                lines.append("\(mark) \(target.target)  \(target.detail)\(external)  \(Self.count(target.referrers.count, "link"))")
                continue
            }
            lines.append("\(mark) \(target.target)  \(problemText(target))\(external)")
            for place in Self.places(target) {
                lines.append("    \(Self.verb(place.link)) \(place.link.source)  \(Self.quoted(place.link.text))" + Self.elementNote(place.link)
                             + (place.count > 1 ? "  (\(place.count) links)" : ""))
            }
        }
        if !orphans.isEmpty {
            lines.append("pages only the sitemap leads to (no loaded page links to them):")
            lines += orphans.map { "    \($0)" }
        }
        if !linksNotRead.isEmpty {
            lines.append("pages whose links were not read (--render auto renders them):")
            lines += linksNotRead.map { "    \($0.url)  \($0.reason)" }
        }
        lines.append(summaryLine)
        return lines
    }

    private var summaryLine: String {
        let broken = targets.filter { $0.problem != nil }
        let links = broken.reduce(0) { $0 + $1.referrers.count }
        let pages = Set(broken.flatMap { $0.referrers.map(\.source) }).count
        var line = broken.isEmpty
            ? (linksNotRead.isEmpty ? "no broken links" : "no broken links found") + " among \(Self.count(targets.count, "target"))"
            : "\(Self.count(broken.count, "broken target")), \(Self.count(links, "link")) to them on \(Self.count(pages, "page"))"
        if !orphans.isEmpty { line += "; \(Self.count(orphans.count, "orphan page"))" }
        if !linksNotRead.isEmpty { line += "; links not read on \(Self.count(linksNotRead.count, "page"))" }
        return line
    }

    private func problemText(_ target: CheckedTarget) -> String {
        switch target.problem {
        case .missingFragment?: return "missing fragment: \(target.detail)"
        case .missingTextFragment?: return "missing text fragment: \(target.detail)"
        default: return target.detail
        }
    }

    // MARK: JSON Lines

    private struct TargetLine: Encodable {
        struct Referrer: Encodable {
            var source, href, text, element: String
            var rel, fragment: String?
            var learnedFrom: [String]?
            /// For a resource the page embeds: the attribute its URL is in.
            var resource: String?

            enum CodingKeys: String, CodingKey {
                case source, href, text, element, rel, fragment, resource
                case learnedFrom = "learned_from"
            }
        }
        var kind = "target"
        var target: String
        var problem: String?
        var detail: String
        var outcome: String?
        var status: Int?
        var external: Bool
        var resource: Bool
        var referrers: [Referrer]
    }

    private struct OrphanLine: Encodable {
        var kind = "orphan"
        var url: String
    }

    private struct UnreadLine: Encodable {
        var kind = "links-not-read"
        var url: String
        var reason: String
    }

    /// One line per target (`"kind":"target"`), then one per orphan page
    /// (`"kind":"orphan"`), then one per page whose links were not read
    /// (`"kind":"links-not-read"`, with the `reason`).
    package var jsonl: String {
        var lines: [String] = []
        for target in targets {
            let line = TargetLine(
                target: target.target, problem: target.problem?.rawValue, detail: target.detail,
                outcome: target.report?.outcome.rawValue, status: target.report?.status, external: target.isExternal,
                resource: target.isResource, referrers: target.referrers.map {
                    .init(source: $0.source, href: $0.href, text: $0.text, element: $0.element, rel: $0.rel, fragment: $0.fragment,
                          learnedFrom: $0.learnedFrom, resource: $0.resource)
                })
            lines.append(JSONText.of(line))
        }
        for orphan in orphans {
            lines.append(JSONText.of(OrphanLine(url: orphan)))
        }
        for page in linksNotRead {
            lines.append(JSONText.of(UnreadLine(url: page.url, reason: page.reason)))
        }
        return lines.map { $0 + "\n" }.joined()
    }

    // MARK: CSV

    package static let csvColumns = ["target", "problem", "detail", "status", "external", "source", "text", "href", "element", "rel",
                                           "resource"]

    /// One row per link (a target linked from three pages has three rows);
    /// orphan pages have the problem `orphan` and no source.
    package var csv: String {
        var rows = [Self.csvColumns.joined(separator: ",")]
        for target in targets {
            for link in target.referrers {
                rows.append(ReportExport.csvRow([
                    target.target, target.problem?.rawValue, target.detail, target.report?.status.map(String.init),
                    target.isExternal ? "true" : "false", link.source, link.text, link.href, link.element, link.rel,
                    link.resource,
                ]))
            }
        }
        for orphan in orphans {
            rows.append(ReportExport.csvRow([orphan, "orphan", "no loaded page links to it", nil, "false", nil, nil, nil, nil, nil,
                                             nil]))
        }
        return rows.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: Markdown

    /// A heading, then a table of targets with the pages that link to them.
    package var markdown: String {
        var lines = ["### navwatch: " + summaryLine, ""]
        if !targets.isEmpty {
            lines += ["| | Target | Result | Linked from |", "|---|---|---|---|"]
            for target in targets {
                let mark = target.problem != nil ? "❌" : "✅"
                let from = Self.places(target).map { place in
                    "\(Markdown.cell(place.link.source)) “\(Markdown.cell(place.link.text))”"
                        + (place.count > 1 ? " (\(place.count) links)" : "")
                }.joined(separator: "<br>")
                lines.append("| \(mark) | `\(Markdown.cell(target.target))` | \(Markdown.cell(problemText(target))) | \(from) |")
            }
        }
        if !orphans.isEmpty {
            lines += ["", "Pages only the sitemap leads to:", ""] + orphans.map { "- `\(Markdown.cell($0))`" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: JUnit XML

    /// One test case per target: a failure for a broken one (its message the
    /// problem, its text the pages that link to it), skipped for one not checked.
    package var junit: String {
        let failures = targets.filter { $0.problem != nil }.count
        let skipped = targets.filter { $0.problem == nil && !($0.report?.wasLoaded ?? false) }.count
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="navwatch links" tests="\#(targets.count)" failures="\#(failures)" skipped="\#(skipped)">"#,
            #"  <testsuite name="links" tests="\#(targets.count)" failures="\#(failures)" skipped="\#(skipped)">"#,
        ]
        for target in targets {
            let name = HTML.escape(target.target)
            let classname = target.isResource ? "links.resource" : target.isExternal ? "links.external" : "links"
            if let problem = target.problem {
                let body = Self.places(target).map { place in
                    "\(Self.verb(place.link)) \(place.link.source) \(Self.quoted(place.link.text))" + (place.count > 1 ? " (\(place.count) links)" : "")
                }.joined(separator: "\n")
                lines.append(#"    <testcase classname="\#(classname)" name="\#(name)">"#)
                lines.append(#"      <failure type="\#(problem.rawValue)" message="\#(HTML.escape(problemText(target)))">"#
                             + HTML.escape(body) + "</failure>")
                lines.append("    </testcase>")
            } else if !(target.report?.wasLoaded ?? false) {
                lines.append(#"    <testcase classname="\#(classname)" name="\#(name)"><skipped message="\#(HTML.escape(target.detail))"/></testcase>"#)
            } else {
                lines.append(#"    <testcase classname="\#(classname)" name="\#(name)"/>"#)
            }
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Helpers

    /// The places a target is linked from: one per page and text, with how
    /// many links there say the same (a heading's several fragments, say).
    private static func places(_ target: CheckedTarget) -> [(link: PageLink, count: Int)] {
        var places: [(link: PageLink, count: Int)] = []
        for link in target.referrers {
            if let last = places.last, last.link.source == link.source, last.link.text == link.text,
               last.link.element == link.element {
                places[places.count - 1].count += 1
            } else {
                places.append((link, 1))
            }
        }
        return places
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    private static func quoted(_ text: String) -> String {
        text.isEmpty ? "(no text)" : "\"\(text)\""
    }

    /// How a page refers to a target: `linked from`, or `used by` for a resource it embeds.
    private static func verb(_ link: PageLink) -> String {
        link.isResource ? "used by" : "linked from"
    }

    private static func elementNote(_ link: PageLink) -> String {
        (link.resource.map { "  (<\(link.element) \($0)>)" } ?? (link.element == "a" ? "" : "  (<\(link.element)>)"))
            + (link.learnedFrom.map { "  (learned from \(count($0.count, "render")) of its kind)" } ?? "")
    }
}
