import Foundation
import NavWatchSupport
import NavWatchCrawler

/// A `CrawlDiff` in the formats of `navwatch diff`: text, Markdown for a
/// pull request, JSON Lines (one change a line), JUnit XML (one test case
/// per change, a failure per regression) and an HTML page in the style of
/// `navwatch report`, with the difference images of visual changes.
package struct DiffListing {
    /// The formats the listing is written in.
    package enum Format: String, Sendable, CaseIterable {
        case text, markdown, jsonl, junit, html, github
    }

    package let diff: CrawlDiff
    /// The crawls, as the listing names them (a path, a postgres:// address without its password).
    package let old: String
    package let new: String
    /// Where the HTML page finds the difference images, relative to it; nil: no images.
    package var images: String? = nil

    /// The listing of `diff` between the crawls named `old` and `new`.
    package init(diff: CrawlDiff, old: String, new: String) {
        (self.diff, self.old, self.new) = (diff, old, new)
    }

    package func render(_ format: Format) -> String {
        switch format {
        case .text: return text
        case .markdown: return markdown
        case .jsonl: return jsonl
        case .junit: return junit
        case .html: return html
        case .github:
            return diff.regressions.map { change in
                let referrers = change.referrers.isEmpty ? "" : " (linked from " + change.referrers.joined(separator: ", ") + ")"
                let title = change.problem.map { "\(change.kind.rawValue) \($0.rawValue)" } ?? change.kind.rawValue
                return GitHubAnnotations.line(.error, title: title, message: "\(change.url): \(Self.line(change))\(referrers)") + "\n"
            }.joined()
        }
    }

    /// `title: "C" → "C, renamed"`, `new broken-link: 404 Not Found`.
    package static func line(_ change: CrawlDiff.Change) -> String {
        let name = change.problem.map { "\(change.kind.rawValue) \($0.rawValue)" } ?? change.kind.rawValue
        switch (change.before, change.after) {
        case let (before?, after?): return "\(name): \(before) → \(after)"
        case let (nil, after?): return "\(name): \(after)"
        case let (before?, nil): return "\(name): was \(before)"
        case (nil, nil): return name
        }
    }

    /// The changes by URL, in order.
    private var byURL: [(url: String, changes: [CrawlDiff.Change])] {
        var groups: [(url: String, changes: [CrawlDiff.Change])] = []
        for change in diff.changes {
            if groups.last?.url == change.url { groups[groups.count - 1].changes.append(change) } else { groups.append((change.url, [change])) }
        }
        return groups
    }

    /// Per URL, its changes, a `!` before regressions, and the referrers of link problems.
    package var text: String { TerminalText.lines(textLines) }

    private var textLines: [String] {
        var lines: [String] = []
        for group in byURL {
            lines.append(group.url)
            for change in group.changes {
                lines.append((change.isRegression ? "! " : "  ") + Self.line(change))
                lines += change.referrers.map { "      linked from \($0)" }
            }
        }
        lines.append(diff.summary)
        lines.append(diff.slowerRule)
        return lines
    }

    package var markdown: String {
        var lines = ["## Changes since the last crawl", "", diff.summary + ".", ""]
        if !diff.changes.isEmpty {
            lines += ["| | page | change | before | after |", "|---|---|---|---|---|"]
            for change in diff.changes {
                let name = change.problem.map { "\(change.kind.rawValue) \($0.rawValue)" } ?? change.kind.rawValue
                var after = change.after.map(Markdown.cell) ?? ""
                if !change.referrers.isEmpty {
                    after += (after.isEmpty ? "" : " ") + "(linked from "
                        + change.referrers.map { "`\(Markdown.cell($0))`" }.joined(separator: ", ") + ")"
                }
                lines.append("| \(change.isRegression ? "❌" : "✅") | `\(Markdown.cell(change.url))` | \(name) | \(change.before.map(Markdown.cell) ?? "") | \(after) |")
            }
            lines.append("")
        }
        lines.append(Markdown.cell(diff.slowerRule))
        return lines.joined(separator: "\n") + "\n"
    }

    package var jsonl: String {
        diff.changes.map { JSONText.of($0) + "\n" }.joined()
    }

    package var junit: String {
        let cases = diff.changes.count, failures = diff.regressions.count
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="navwatch diff" tests="\#(cases)" failures="\#(failures)">"#,
            #"  <testsuite name="diff" tests="\#(cases)" failures="\#(failures)">"#,
        ]
        for change in diff.changes {
            let kind = change.problem.map { "\(change.kind.rawValue).\($0.rawValue)" } ?? change.kind.rawValue
            let opening = #"    <testcase classname="diff.\#(kind)" name="\#(HTML.escape(change.url))""#
            if change.isRegression {
                let referrers = change.referrers.isEmpty ? "" : "\n" + change.referrers.map { "linked from " + $0 }.joined(separator: "\n")
                lines.append(opening + ">")
                lines.append(#"      <failure type="\#(kind)" message="\#(HTML.escape(Self.line(change)))">\#(HTML.escape(Self.line(change) + referrers))</failure>"#)
                lines.append("    </testcase>")
            } else {
                lines.append(opening + "/>")
            }
        }
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One self-contained page: the figures, then a table per page changed.
    package var html: String {
        let regressions = diff.regressions.count
        let figures = [("changes", "changes", diff.changes.count), ("regressions", "regressions", regressions),
                       ("before", "pages before", diff.pagesBefore), ("after", "pages after", diff.pagesAfter)]
        var html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>navwatch diff: \(HTML.escape(old)) → \(HTML.escape(new))</title><style>\(HTMLReport.style)
            .regression{color:#b00020}.diffimage{max-width:640px;border:1px solid #ccc;display:block;margin:6px 0}</style></head><body>
            <header><h1>navwatch diff</h1><p class="source">\(HTML.escape(old)) → \(HTML.escape(new))</p></header>
            <section id="summary" class="figures">
            """
        for figure in figures {
            html += #"<div class="figure"><div class="number" id="figure-\#(figure.0)">\#(figure.2)</div><div class="label">\#(figure.1)</div></div>"#
        }
        html += "</section>"
        if diff.changes.isEmpty { html += "<p>Nothing changed.</p>" }
        for group in byURL {
            html += #"<section class="page"><h2>\#(HTML.escape(group.url))</h2><table><thead><tr><th>change</th><th>before</th><th>after</th></tr></thead><tbody>"#
            for change in group.changes {
                let name = change.problem.map { "\(change.kind.rawValue) \($0.rawValue)" } ?? change.kind.rawValue
                var after = HTML.escape(change.after ?? "")
                if !change.referrers.isEmpty {
                    after += #"<ul class="referrers">"# + change.referrers.map { "<li>linked from \(HTML.escape($0))</li>" }.joined() + "</ul>"
                }
                if let images, let image = change.image {
                    let source = HTML.escape(images + "/" + (image.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? image))
                    after += #"<img class="diffimage" src="\#(source)" alt="difference image" loading="lazy">"#
                }
                html += #"<tr\#(change.isRegression ? #" class="regression""# : "")><td>\#(name)</td><td>\#(HTML.escape(change.before ?? ""))</td><td>\#(after)</td></tr>"#
            }
            html += "</tbody></table></section>"
        }
        return html + "<footer><p>\(HTML.escape(diff.summary))</p><p>\(HTML.escape(diff.slowerRule))</p></footer></body></html>\n"
    }
}
