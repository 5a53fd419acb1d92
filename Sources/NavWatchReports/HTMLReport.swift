import Foundation
import NavWatchCrawler
import NavWatchSupport

/// One self-contained HTML file about a crawl: its figures, charts drawn as
/// SVG, the slowest, heaviest and failing pages, redirect chains, its links
/// (every broken target with the pages that link to it and their text,
/// missing fragments, orphans, the links not followed and why), and every
/// page loaded in a paged, searchable table whose rows show a thumbnail of
/// the page's screenshot and of its request waterfall, and open both.
///
/// Pages loaded (or checked) and links not followed are kept apart: the
/// figures and the table of all pages count only the pages loaded.
///
/// Nothing is fetched to view it: styles and the script are inline, and the
/// pages' data is embedded as JSON that the script renders 50 rows at a
/// time, so 10,000 pages do not make a 10,000-row document. Screenshots are
/// linked from `screenshots`, a path relative to the report, and load only
/// for the rows shown. A fragment `#page=N` opens the N-th page loaded's
/// detail (the order of `navwatch export`, links not followed left out).
///
/// The report is written as it is made: the figures and tables come from a
/// `ReportDigest` of every report, then each page's data is written in turn,
/// so memory holds the digest and one page whatever the crawl's size.
package enum HTMLReport {
    /// Writes the report of every report in `store` to `output`, reading
    /// the store twice (the digest, then the pages' data), a batch at a time.
    /// Returns the number of reports.
    /// Returns the number of pages loaded.
    package static func write(from store: any CrawlStore, source: String, screenshots: String?, links: LinkCheckResult?,
                      to output: TextOutput) async throws -> Int {
        var digest = ReportDigest()
        for try await report in store.storedReports(includingRequests: true) { digest.add(report) }
        output.write(head(digest, links: links, source: source))
        var first = true
        for try await report in store.storedReports(includingRequests: true) where report.tally == .loaded {
            output.write((first ? "" : ",") + data(report, screenshots: screenshots))
            first = false
        }
        output.write(tail)
        return digest.summary.loaded
    }

    /// The report of `reports` (and of their links, when checked), in one string.
    package static func html(_ reports: [PageLoadReport], links: LinkCheckResult? = nil, source: String, screenshots: String?) -> String {
        let digest = reports.reduce(into: ReportDigest()) { $0.add($1) }
        return head(digest, links: links, source: source)
            + reports.filter { $0.tally == .loaded }.map { data($0, screenshots: screenshots) }.joined(separator: ",") + tail
    }

    /// Everything before the pages' data: figures, charts, tables, the
    /// table of all pages, and the start of the data element.
    private static func head(_ digest: ReportDigest, links: LinkCheckResult?, source: String) -> String {
        let summary = digest.summary
        let median = summary.loadTime(percentile: 50), p95 = summary.loadTime(percentile: 95)
        var figures: [(id: String, label: String, value: String)] = [
            ("pages", "pages loaded", "\(summary.loaded)"),
            ("ok", "ok", "\(summary.outcomes[.ok] ?? 0)"),
            ("failing", "not ok", "\(digest.failing.offered)"),
            ("checked", "links and resources checked", "\(summary.checked)"),
            ("skipped", "links not followed", "\(summary.skipped + summary.blocked)"),
        ]
        if let links {
            figures += [("broken", "broken links", "\(links.brokenInScope.count + links.brokenExternal.count)"),
                        ("resources", "broken resources", "\(links.brokenResources.count)"),
                        ("fragments", "missing fragments", "\(links.missingFragments.count)"),
                        ("text-fragments", "missing text fragments", "\(links.missingTextFragments.count)")]
        }
        figures += [
            ("requests", "requests", "\(digest.requests)"),
            ("bytes", "bytes transferred", bytesText(digest.bytes)),
            ("median", "median load", median?.millisecondsText ?? "–"),
            ("p95", "95th percentile load", p95?.millisecondsText ?? "–"),
        ]

        var html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>navwatch report: \(HTML.escape(source))</title><style>\(style)</style></head><body>
            <header><h1>navwatch report</h1><p class="source">\(HTML.escape(source)) · \(HTML.escape(span(digest)))\(networkText(digest))</p></header>
            <section id="summary" class="figures">
            """
        for figure in figures {
            html += #"<div class="figure"><div class="number" id="figure-\#(figure.id)">\#(figure.value)</div><div class="label">\#(figure.label)</div></div>"#
        }
        html += "</section>"

        html += section("Outcomes of the pages loaded", SVGChart.horizontalBars(outcomeBars(summary), id: "chart-outcomes"))
        html += section("HTTP statuses", SVGChart.horizontalBars(statusBars(summary), id: "chart-statuses"))
        html += section("Load time (until the page finished)", SVGChart.columns(loadTimeBars(digest.loadTimeCounts), id: "chart-load-times"))
        html += section("Weight by resource type", SVGChart.horizontalBars(weightBars(digest.weight), id: "chart-weight"))
        html += section("Metrics", metricsSection(digest.metrics))
        html += section("Slowest pages", table(digest.slowest.reports, id: "slowest"))
        if digest.varied.offered > 0 {
            html += section("Spread of repeated loads (\(digest.varied.offered) pages)", spreadTable(digest.varied.reports)
                + (digest.varied.offered > 50 ? "<p>The 50 pages whose finish times varied most.</p>" : ""))
        }
        html += section("Heaviest pages", table(digest.heaviest.reports, id: "heaviest"))
        html += section("Pages that are not ok (\(digest.failing.offered))", table(digest.failing.reports, id: "failing")
            + (digest.failing.offered > 50 ? "<p>The first 50; the table of all pages below finds the rest (search for their outcome).</p>" : ""))
        let withErrors = digest.withErrors
        html += section("Pages with JavaScript errors (\(withErrors.offered))", errorTable(withErrors.reports)
            + (withErrors.offered > 50 ? "<p>The 50 with the most errors.</p>" : ""))
        html += section("Redirect chains (\(digest.redirected.offered))", redirectTable(digest.redirected.reports))
        if let links { html += linkSections(links) }
        html += section("Links not followed (\(summary.skipped + summary.blocked))", notFollowedTable(digest.notFollowed))
        html += """
            <section><h2>Pages loaded</h2>
            <p><input id="search" type="search" placeholder="Search URL, title, outcome or status" size="50">
            <span id="page-count"></span></p>
            <table id="pages"><thead><tr><th>URL</th><th>outcome</th><th>status</th><th>load</th><th>bytes</th><th>requests</th><th>requests over time</th><th>screenshot</th></tr></thead>
            <tbody></tbody></table>
            <p class="pager"><button id="previous">‹ previous</button> <span id="pager-position"></span> <button id="next">next ›</button></p>
            </section>
            <section id="detail" hidden><h2 id="detail-title"></h2><p id="detail-facts"></p>
            <div id="waterfall"></div><div id="screenshot"></div></section>
            <script type="application/json" id="data">[
            """
        return html
    }

    /// Everything after the pages' data.
    private static let tail = """
        ]</script>
        <script>\(script)</script>
        </body></html>
        """

    // MARK: Charts

    private static func outcomeBars(_ summary: CrawlSummary) -> [SVGChart.Bar] {
        summary.outcomes.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }.map {
            SVGChart.Bar(label: $0.key.rawValue, value: Double($0.value), text: "\($0.value)", color: color(of: $0.key))
        }
    }

    private static func color(of outcome: PageLoadReport.Outcome) -> String {
        switch outcome {
        case .ok: return "#3a8a4f"
        case .httpError: return "#c0782a"
        case .failed: return "#b83b3b"
        case .timeout: return "#8a3bb8"
        case .crashed: return "#5a2020"
        case .download: return "#4a6fa5"
        case .skipped: return "#9a9a9a"
        case .blocked: return "#6b4f2a"
        }
    }

    private static func statusBars(_ summary: CrawlSummary) -> [SVGChart.Bar] {
        var counts = Dictionary(uniqueKeysWithValues: summary.statuses.map { (String($0.key), $0.value) })
        let withoutStatus = summary.loaded - summary.statuses.values.reduce(0, +)
        if withoutStatus > 0 { counts["none"] = withoutStatus }
        return counts.sorted { $0.key < $1.key }.map { status, count in
            let color = status.hasPrefix("2") ? "#3a8a4f" : status.hasPrefix("3") ? "#4a6fa5" : status == "none" ? "#9a9a9a" : "#c0782a"
            return SVGChart.Bar(label: status, value: Double(count), text: "\(count)", color: color)
        }
    }

    /// Upper bounds of the time histograms' buckets (the load time, and each
    /// timing of `MetricDistribution`), in milliseconds.
    static let loadTimeBuckets: [Double] = [100, 250, 500, 1000, 2500, 5000, 10000]

    private static func loadTimeBars(_ counts: [Int]) -> [SVGChart.Bar] {
        bucketBars(counts, bounds: loadTimeBuckets, label: boundText)
    }

    /// A histogram's bars: one per bucket of `bounds` (upper bounds; one
    /// more bucket holds the rest) with its count, labelled `< bound` and,
    /// the last, `≥ bound`.
    static func bucketBars(_ counts: [Int], bounds: [Double], label: (Double) -> String) -> [SVGChart.Bar] {
        var bars: [SVGChart.Bar] = []
        var lower = 0.0
        for (upper, count) in zip(bounds + [.infinity], counts) {
            let text = upper.isInfinite ? "≥ \(label(lower))" : "< \(label(upper))"
            bars.append(SVGChart.Bar(label: text, value: Double(count), text: "\(count)"))
            lower = upper
        }
        return bars
    }

    private static func weightBars(_ bytes: [String: Int]) -> [SVGChart.Bar] {
        bytes.sorted { $0.value > $1.value }.map {
            SVGChart.Bar(label: $0.key, value: Double($0.value), text: bytesText($0.value))
        }
    }

    /// Per metric: its median and 95th percentile, its distribution, and the
    /// five pages with the highest values; a metric no page had says so.
    private static func metricsSection(_ metrics: [MetricDistribution]) -> String {
        var html = #"<div class="metrics">"#
        for distribution in metrics {
            let metric = distribution.metric
            html += #"<div class="metric" id="metric-\#(metric.id)"><h3>\#(HTML.escape(metric.title))</h3>"#
            guard distribution.measured > 0 else {
                html += "<p>not measured: \(HTML.escape(metric.whenNone))</p></div>"
                continue
            }
            let median = distribution.value(percentile: 50).map(distribution.text) ?? "–"
            let p95 = distribution.value(percentile: 95).map(distribution.text) ?? "–"
            html += "<p>median \(median) · 95th percentile \(p95) · \(distribution.measured) pages</p>"
            html += SVGChart.columns(distribution.bars, id: "chart-\(metric.id)", width: 420, height: 150)
            html += "<ol class=\"highest\">"
            for report in distribution.highest.reports {
                html += "<li>\(link(report.url)) \(metric.value(report).map(distribution.text) ?? "")</li>"
            }
            html += "</ol></div>"
        }
        return html + "</div>"
    }

    // MARK: Tables

    private static func section(_ title: String, _ body: String) -> String {
        "<section><h2>\(HTML.escape(title))</h2>\(body)</section>"
    }

    /// A table with `id`, a column per header and a row per element of
    /// `rows` (each cell already HTML); "None." when there is no row.
    private static func table(id: String, headers: [String], rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "<p>None.</p>" }
        let head = headers.map { "<th>\($0)</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined()
        return #"<table id="\#(id)"><thead><tr>\#(head)</tr></thead><tbody>\#(body)</tbody></table>"#
    }

    private static func table(_ reports: [PageLoadReport], id: String) -> String {
        table(id: id, headers: ["URL", "outcome", "status", "load", "bytes"], rows: reports.map { report in
            [link(report.url), report.outcome.rawValue + (report.error.map { " (\($0.kind.rawValue))" } ?? ""),
             report.status.map(String.init) ?? "–", report.timings.finish?.millisecondsText ?? "–",
             bytesText(report.resources.transferBytes)]
        })
    }

    /// Pages loaded several times: each one's finish times as a box (the
    /// interquartile range) with whiskers to the extremes and a mark at the
    /// median, all on one scale, and the figures.
    private static func spreadTable(_ reports: [PageLoadReport]) -> String {
        let scale = reports.compactMap { $0.spread?.finish?.max }.max() ?? 1
        return table(id: "spread", headers: ["URL", "runs", "finish median", "min – max", "IQR", "finish times"],
                     rows: reports.compactMap { report in
            guard let finish = report.spread?.finish else { return nil }
            return [link(report.url), "\(report.runs?.count ?? 1)", finish.median.millisecondsText,
                    "\(finish.min.millisecondsText) – \(finish.max.millisecondsText)", finish.interquartileRange.millisecondsText,
                    SVGChart.box(finish, scale: scale)]
        })
    }

    /// ` · over 3GFast (1.6 Mbit/s down, …)`, or nothing when no page loaded over a network profile.
    private static func networkText(_ digest: ReportDigest) -> String {
        digest.networks.isEmpty ? "" : " · over " + HTML.escape(digest.networks.map(\.description).joined(separator: ", "))
    }

    /// Pages with page errors or console errors: the counts and the first page error.
    private static func errorTable(_ reports: [PageLoadReport]) -> String {
        table(id: "errors", headers: ["URL", "page errors", "console errors", "console warnings", "first page error"],
              rows: reports.map { report in
            let first = report.pageErrors?.first.map { error in
                HTML.escape(error.message) + (error.url.map { " <span class=\"hop\">\(HTML.escape($0))\(error.line.map { ":\($0)" } ?? "")</span>" } ?? "")
            } ?? "–"
            return [link(report.url), "\(report.pageErrorCount ?? 0)", "\(report.console?.errors ?? 0)",
                    "\(report.console?.warnings ?? 0)", first]
        })
    }

    private static func redirectTable(_ reports: [PageLoadReport]) -> String {
        table(id: "redirects", headers: ["chain", "hops"], rows: reports.map { report in
            let chain = report.redirects.map { "\(link($0.url)) <span class=\"hop\">\($0.status) →</span> " }.joined()
            return [chain + link(report.finalURL ?? report.url), "\(report.redirects.count)"]
        })
    }

    /// Broken targets, missing fragments and text fragments, and orphan pages, each broken target
    /// with the pages that link to it and the links' text.
    private static func linkSections(_ links: LinkCheckResult) -> String {
        let broken = links.brokenInScope + links.brokenExternal
        var html = section("Broken links (\(broken.count))", targetTable(broken, id: "broken-links"))
        html += section("Broken resources: images, style sheets, scripts, media (\(links.brokenResources.count))",
                        targetTable(links.brokenResources, id: "broken-resources"))
        html += section("Missing fragments (\(links.missingFragments.count))",
                        targetTable(links.missingFragments, id: "missing-fragments"))
        html += section("Missing text fragments (\(links.missingTextFragments.count))",
                        targetTable(links.missingTextFragments, id: "missing-text-fragments"))
        let orphans = links.orphans.prefix(shownTargets).map { "<li>\(link($0))</li>" }.joined()
        html += section("Pages only the sitemap leads to (\(links.orphans.count))",
                        links.orphans.isEmpty ? "<p>None.</p>" : "<ul id=\"orphans\">\(orphans)</ul>"
                            + (links.orphans.count > shownTargets ? "<p>The first \(shownTargets).</p>" : ""))
        return html
    }

    /// How many targets a links table shows, and how many referrers each.
    static let shownTargets = 200, shownReferrers = 10

    private static func targetTable(_ targets: [CheckedTarget], id: String) -> String {
        let html = table(id: id, headers: ["target", "what became of it", id == "broken-resources" ? "used by" : "linked from (link text)"],
                         rows: targets.prefix(shownTargets).map { target in
            let referrers = target.referrers.prefix(shownReferrers).map { referrer in
                "<li>\(link(referrer.source)) <span class=\"hop\">“\(HTML.escape(referrer.text))”</span></li>"
            }.joined()
            let more = target.referrers.count > shownReferrers ? "<li>and \(target.referrers.count - shownReferrers) more</li>" : ""
            return [link(target.target), HTML.escape(target.detail) + (target.isExternal ? " (external)" : ""),
                    "<ul class=\"referrers\">\(referrers)\(more)</ul>"]
        })
        guard targets.count > shownTargets else { return html }
        return html + "<p>The first \(shownTargets); <code>navwatch links --broken</code> lists them all.</p>"
    }

    /// Links not followed, by why.
    private static func notFollowedTable(_ counts: [String: Int]) -> String {
        guard !counts.isEmpty else { return "<p>None.</p>" }
        let why = ["scope": "outside the crawl's scope (--check-external checks them)", "max-depth": "deeper than --max-depth",
                   "max-pages": "beyond --max-pages", "robots": "disallowed by robots.txt", "non-http": "not http or https",
                   "private-address": "refused by the private-address guard"]
        let rows = counts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }).map { reason, count in
            [HTML.escape(why[reason] ?? reason), "\(count)"]
        }
        return table(id: "not-followed", headers: ["why", "links"], rows: rows)
            + "<p><code>navwatch export</code> lists each of them.</p>"
    }

    private static func link(_ url: String) -> String {
        #"<a href="\#(HTML.escape(url))">\#(HTML.escape(url))</a>"#
    }

    // MARK: Data for the script

    /// A page as compact JSON for the script: every `<` escaped, so no
    /// text can end the script element early.
    private static func data(_ report: PageLoadReport, screenshots: String?) -> String {
        var page: [String: Any] = [
            "u": report.url, "o": report.outcome.rawValue, "t": report.title ?? "",
            "b": report.resources.transferBytes, "n": max(report.requests.count, report.resources.count),
        ]
        if let status = report.status { page["s"] = status }
        if let finish = report.timings.finish { page["f"] = finish }
        if let error = report.error { page["e"] = error.kind.rawValue }
        if let screenshots, let name = report.screenshot { page["sh"] = screenshots + "/" + name }
        if let reason = report.skipReason { page["k"] = reason.rawValue }
        // Each request: [type, start, time, status, bytes, url]; the waterfall draws the first 200.
        page["w"] = report.requests.prefix(200).map { request -> [Any] in
            [request.type.rawValue, request.startMs, request.timeMs, request.status ?? 0, request.transferBytes ?? 0,
             request.url]
        }
        // Sorted keys: the same reports make the same bytes.
        let json = (try? JSONSerialization.data(withJSONObject: page, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: json, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }

    // MARK: Formatting

    /// A histogram's bucket bound in milliseconds, as a label: `250 ms`, `1 s`, `2.5 s`.
    static func boundText(_ ms: Double) -> String {
        ms < 1000 ? "\(ms.plainText) ms" : "\((ms / 1000).plainText) s"
    }

    static func bytesText(_ bytes: Int) -> String {
        let value = Double(bytes)
        if value >= 1_048_576 { return String(format: "%.1f MB", value / 1_048_576) }
        if value >= 1024 { return String(format: "%.1f kB", value / 1024) }
        return "\(bytes) B"
    }

    private static func span(_ digest: ReportDigest) -> String {
        guard let first = digest.firstFetched, let last = digest.lastFetched else { return "no pages" }
        let formatter = ISO8601DateFormatter()
        return "\(formatter.string(from: first)) – \(formatter.string(from: last))"
    }

    /// The report's style sheet (Resources/report.css).
    package static let style = String(decoding: PackageResources.report_css, as: UTF8.self)

    /// Renders the table of all pages (search and paging) and a page's
    /// detail (Resources/report.js).
    private static let script = String(decoding: PackageResources.report_js, as: UTF8.self)
}
