import Foundation
import NavWatchCrawler

/// One self-contained HTML file about a crawl: its figures, charts drawn as
/// SVG, the slowest, heaviest and failing pages, redirect chains, and every
/// page in a paged, searchable table whose rows open that page's request
/// waterfall and screenshot.
///
/// Nothing is fetched to view it: styles and the script are inline, and the
/// pages' data is embedded as JSON that the script renders 50 rows at a
/// time, so 10,000 pages do not make a 10,000-row document. Screenshots are
/// linked from `screenshots`, a path relative to the report. A fragment
/// `#page=N` opens the N-th page's detail (the order of `navwatch export`).
enum HTMLReport {
    static func html(_ reports: [PageLoadReport], source: String, screenshots: String?) -> String {
        let loaded = reports.filter(\.wasLoaded)
        let finishTimes = loaded.compactMap(\.timings.finish).sorted()
        let requests = loaded.reduce(0) { $0 + max($1.requests.count, $1.resources.count) }
        let bytes = loaded.reduce(0) { $0 + $1.resources.transferBytes }
        let failing = loaded.filter { $0.outcome != .ok }
        var figures: [(id: String, label: String, value: String)] = [
            ("pages", "pages reported", "\(reports.count)"),
            ("loaded", "loaded", "\(loaded.count)"),
            ("ok", "ok", "\(loaded.filter { $0.outcome == .ok }.count)"),
            ("failing", "not ok", "\(failing.count)"),
            ("skipped", "skipped", "\(reports.count - loaded.count)"),
            ("requests", "requests", "\(requests)"),
            ("bytes", "bytes transferred", bytesText(bytes)),
        ]
        figures.append(("median", "median load", finishTimes.isEmpty ? "–" : msText(percentile(finishTimes, 0.5))))
        figures.append(("p95", "95th percentile load", finishTimes.isEmpty ? "–" : msText(percentile(finishTimes, 0.95))))

        var html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>navwatch report: \(HTML.escape(source))</title><style>\(style)</style></head><body>
            <header><h1>navwatch report</h1><p class="source">\(HTML.escape(source)) · \(HTML.escape(span(reports)))</p></header>
            <section id="summary" class="figures">
            """
        for figure in figures {
            html += #"<div class="figure"><div class="number" id="figure-\#(figure.id)">\#(figure.value)</div><div class="label">\#(figure.label)</div></div>"#
        }
        html += "</section>"

        html += section("Outcomes", SVGChart.horizontalBars(outcomeBars(reports), id: "chart-outcomes"))
        html += section("HTTP statuses", SVGChart.horizontalBars(statusBars(loaded), id: "chart-statuses"))
        html += section("Load time (until the page finished)", SVGChart.columns(loadTimeBars(finishTimes), id: "chart-load-times"))
        html += section("Weight by resource type", SVGChart.horizontalBars(weightBars(loaded), id: "chart-weight"))
        html += section("Slowest pages", table(loaded.filter { $0.timings.finish != nil }
            .sorted { $0.timings.finish! > $1.timings.finish! }.prefix(10), id: "slowest"))
        html += section("Heaviest pages", table(loaded.sorted { $0.resources.transferBytes > $1.resources.transferBytes }
            .prefix(10), id: "heaviest"))
        html += section("Pages that are not ok (\(failing.count))", table(failing.prefix(50), id: "failing")
            + (failing.count > 50 ? "<p>The first 50; the table of all pages below finds the rest (search for their outcome).</p>" : ""))
        let withErrors = loaded.filter { ($0.pageErrorCount ?? 0) > 0 || ($0.console?.errors ?? 0) > 0 }
            .sorted { (($0.pageErrorCount ?? 0), ($0.console?.errors ?? 0)) > (($1.pageErrorCount ?? 0), ($1.console?.errors ?? 0)) }
        html += section("Pages with JavaScript errors (\(withErrors.count))", errorTable(withErrors.prefix(50))
            + (withErrors.count > 50 ? "<p>The 50 with the most errors.</p>" : ""))
        let redirected = loaded.filter { !$0.redirects.isEmpty }
        html += section("Redirect chains (\(redirected.count))", redirectTable(redirected.prefix(50)))
        html += """
            <section><h2>All pages</h2>
            <p><input id="search" type="search" placeholder="Search URL, title, outcome or status" size="50">
            <span id="page-count"></span></p>
            <table id="pages"><thead><tr><th>URL</th><th>outcome</th><th>status</th><th>load</th><th>bytes</th><th>requests</th></tr></thead>
            <tbody></tbody></table>
            <p class="pager"><button id="previous">‹ previous</button> <span id="pager-position"></span> <button id="next">next ›</button></p>
            </section>
            <section id="detail" hidden><h2 id="detail-title"></h2><p id="detail-facts"></p>
            <div id="waterfall"></div><div id="screenshot"></div></section>
            <script type="application/json" id="data">\(data(reports, screenshots: screenshots))</script>
            <script>\(script)</script>
            </body></html>
            """
        return html
    }

    // MARK: Charts

    private static func outcomeBars(_ reports: [PageLoadReport]) -> [SVGChart.Bar] {
        let colors = ["ok": "#3a8a4f", "http-error": "#c0782a", "failed": "#b83b3b", "timeout": "#8a3bb8",
                      "crashed": "#5a2020", "download": "#4a6fa5", "skipped": "#9a9a9a"]
        let counts = Dictionary(grouping: reports, by: { $0.outcome.rawValue }).mapValues(\.count)
        return counts.sorted { $0.value > $1.value }.map {
            SVGChart.Bar(label: $0.key, value: Double($0.value), text: "\($0.value)", color: colors[$0.key] ?? "#3b6ea5")
        }
    }

    private static func statusBars(_ reports: [PageLoadReport]) -> [SVGChart.Bar] {
        let counts = Dictionary(grouping: reports, by: { $0.status.map(String.init) ?? "none" }).mapValues(\.count)
        return counts.sorted { $0.key < $1.key }.map { status, count in
            let color = status.hasPrefix("2") ? "#3a8a4f" : status.hasPrefix("3") ? "#4a6fa5" : status == "none" ? "#9a9a9a" : "#c0782a"
            return SVGChart.Bar(label: status, value: Double(count), text: "\(count)", color: color)
        }
    }

    /// Upper bounds of the load-time buckets, in milliseconds.
    static let loadTimeBuckets: [Double] = [100, 250, 500, 1000, 2500, 5000, 10000]

    private static func loadTimeBars(_ sorted: [Double]) -> [SVGChart.Bar] {
        var bars: [SVGChart.Bar] = []
        var lower = 0.0
        for upper in loadTimeBuckets + [Double.infinity] {
            let count = sorted.filter { $0 >= lower && $0 < upper }.count
            let label = upper.isInfinite ? "≥ \(msText(lower))" : "< \(msText(upper))"
            bars.append(SVGChart.Bar(label: label, value: Double(count), text: "\(count)"))
            lower = upper
        }
        return bars
    }

    private static func weightBars(_ reports: [PageLoadReport]) -> [SVGChart.Bar] {
        var bytes: [String: Int] = [:]
        for report in reports {
            for (type, weight) in report.resources.byType { bytes[type, default: 0] += weight.bytes }
        }
        return bytes.sorted { $0.value > $1.value }.map {
            SVGChart.Bar(label: $0.key, value: Double($0.value), text: bytesText($0.value))
        }
    }

    // MARK: Tables

    private static func section(_ title: String, _ body: String) -> String {
        "<section><h2>\(HTML.escape(title))</h2>\(body)</section>"
    }

    private static func table(_ reports: ArraySlice<PageLoadReport>, id: String) -> String {
        guard !reports.isEmpty else { return "<p>None.</p>" }
        var html = #"<table id="\#(id)"><thead><tr><th>URL</th><th>outcome</th><th>status</th><th>load</th><th>bytes</th></tr></thead><tbody>"#
        for report in reports {
            html += "<tr><td>\(link(report.url))</td><td>\(report.outcome.rawValue)\(report.error.map { " (\(HTML.escape($0.kind)))" } ?? "")</td>"
            html += "<td>\(report.status.map(String.init) ?? "–")</td><td>\(report.timings.finish.map(msText) ?? "–")</td>"
            html += "<td>\(bytesText(report.resources.transferBytes))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    /// Pages with page errors or console errors: the counts and the first page error.
    private static func errorTable(_ reports: ArraySlice<PageLoadReport>) -> String {
        guard !reports.isEmpty else { return "<p>None.</p>" }
        var html = #"<table id="errors"><thead><tr><th>URL</th><th>page errors</th><th>console errors</th><th>console warnings</th><th>first page error</th></tr></thead><tbody>"#
        for report in reports {
            let first = report.pageErrors?.first.map { error in
                HTML.escape(error.message) + (error.url.map { " <span class=\"hop\">\(HTML.escape($0))\(error.line.map { ":\($0)" } ?? "")</span>" } ?? "")
            } ?? "–"
            html += "<tr><td>\(link(report.url))</td><td>\(report.pageErrorCount ?? 0)</td><td>\(report.console?.errors ?? 0)</td>"
            html += "<td>\(report.console?.warnings ?? 0)</td><td>\(first)</td></tr>"
        }
        return html + "</tbody></table>"
    }

    private static func redirectTable(_ reports: ArraySlice<PageLoadReport>) -> String {
        guard !reports.isEmpty else { return "<p>None.</p>" }
        var html = #"<table id="redirects"><thead><tr><th>chain</th><th>hops</th></tr></thead><tbody>"#
        for report in reports {
            let chain = report.redirects.map { "\(link($0.url)) <span class=\"hop\">\($0.status) →</span> " }.joined()
            html += "<tr><td>\(chain)\(link(report.finalURL ?? report.url))</td><td>\(report.redirects.count)</td></tr>"
        }
        return html + "</tbody></table>"
    }

    private static func link(_ url: String) -> String {
        #"<a href="\#(HTML.escape(url))">\#(HTML.escape(url))</a>"#
    }

    // MARK: Data for the script

    /// The pages as compact JSON for the script: every `<` escaped, so no
    /// text can end the script element early.
    private static func data(_ reports: [PageLoadReport], screenshots: String?) -> String {
        let pages: [[String: Any]] = reports.map { report in
            var page: [String: Any] = [
                "u": report.url, "o": report.outcome.rawValue, "t": report.title ?? "",
                "b": report.resources.transferBytes, "n": max(report.requests.count, report.resources.count),
            ]
            if let status = report.status { page["s"] = status }
            if let finish = report.timings.finish { page["f"] = finish }
            if let error = report.error { page["e"] = error.kind }
            if let screenshots, let name = report.screenshot { page["sh"] = screenshots + "/" + name }
            if let reason = report.skipReason { page["k"] = reason.rawValue }
            // Each request: [type, start, time, status, bytes, url]; the waterfall draws the first 200.
            page["w"] = report.requests.prefix(200).map { request -> [Any] in
                [request.type.rawValue, request.startMs, request.timeMs, request.status ?? 0, request.transferBytes ?? 0,
                 request.url]
            }
            return page
        }
        let json = (try? JSONSerialization.data(withJSONObject: pages)) ?? Data("[]".utf8)
        return String(decoding: json, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }

    // MARK: Formatting

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    static func msText(_ ms: Double) -> String {
        ms >= 1000 ? String(format: "%.2f s", ms / 1000) : String(format: "%.0f ms", ms)
    }

    static func bytesText(_ bytes: Int) -> String {
        let value = Double(bytes)
        if value >= 1_048_576 { return String(format: "%.1f MB", value / 1_048_576) }
        if value >= 1024 { return String(format: "%.1f kB", value / 1024) }
        return "\(bytes) B"
    }

    private static func span(_ reports: [PageLoadReport]) -> String {
        let dates = reports.map(\.fetchedAt)
        guard let first = dates.min(), let last = dates.max() else { return "no pages" }
        let formatter = ISO8601DateFormatter()
        return "\(formatter.string(from: first)) – \(formatter.string(from: last))"
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}
        h1{margin:0}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}.source{color:#666}
        .figures{display:flex;flex-wrap:wrap;gap:12px}.figure{border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:110px}
        .number{font-size:22px;font-weight:600}.label{color:#666}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee;word-break:break-all}
        #pages tbody tr{cursor:pointer}#pages tbody tr:hover{background:#f3f6fa}
        .chart text{font-size:12px;fill:#333}.chart .value{fill:#555}.hop{color:#888}
        #detail{min-height:100vh}#waterfall svg text{font-size:11px}#screenshot img{max-width:640px;border:1px solid #ccc;margin-top:12px}
        """

    /// Renders the table of all pages (search and paging) and a page's detail.
    private static let script = """
        const pages = JSON.parse(document.getElementById('data').textContent);
        const body = document.querySelector('#pages tbody');
        const colors = {document:'#3b6ea5',stylesheet:'#8a5fb8',script:'#c0a02a',image:'#3a8a4f',font:'#b8603b',
          fetch:'#2a9ac0',media:'#b83b7a',other:'#888'};
        let matching = pages, offset = 0;
        const size = 50;
        const text = (tag, value, attributes = {}) => {
          const element = document.createElement(tag);
          element.textContent = value;
          for (const [name, v] of Object.entries(attributes)) element.setAttribute(name, v);
          return element;
        };
        const ms = v => v === undefined ? '–' : (v >= 1000 ? (v / 1000).toFixed(2) + ' s' : Math.round(v) + ' ms');
        const kb = v => v >= 1048576 ? (v / 1048576).toFixed(1) + ' MB' : v >= 1024 ? (v / 1024).toFixed(1) + ' kB' : v + ' B';
        function render() {
          body.replaceChildren();
          for (const page of matching.slice(offset, offset + size)) {
            const row = document.createElement('tr');
            row.append(text('td', page.u), text('td', page.o + (page.e ? ' (' + page.e + ')' : '') + (page.k ? ' (' + page.k + ')' : '')),
              text('td', page.s ?? '–'), text('td', ms(page.f)), text('td', kb(page.b)), text('td', page.n));
            row.addEventListener('click', () => show(page));
            body.append(row);
          }
          document.getElementById('page-count').textContent = matching.length + ' of ' + pages.length + ' pages';
          document.getElementById('pager-position').textContent = matching.length === 0 ? '' :
            (offset + 1) + '–' + Math.min(offset + size, matching.length);
          document.getElementById('previous').disabled = offset === 0;
          document.getElementById('next').disabled = offset + size >= matching.length;
        }
        function show(page) {
          history.replaceState(null, '', '#page=' + (pages.indexOf(page) + 1));
          const detail = document.getElementById('detail');
          detail.hidden = false;
          document.getElementById('detail-title').textContent = page.u;
          document.getElementById('detail-facts').textContent = [page.t, page.o, page.s ? 'HTTP ' + page.s : '',
            'load ' + ms(page.f), kb(page.b), page.n + ' requests'].filter(Boolean).join(' · ');
          const end = Math.max(1, ...page.w.map(r => r[1] + r[2]));
          const width = 1000, label = 360, row = 16;
          const svgNS = 'http://www.w3.org/2000/svg';
          const svg = document.createElementNS(svgNS, 'svg');
          svg.setAttribute('width', width); svg.setAttribute('height', page.w.length * row + 24);
          svg.setAttribute('id', 'waterfall-chart');
          page.w.forEach((r, i) => {
            const [type, start, time, status, bytes, url] = r;
            const name = document.createElementNS(svgNS, 'text');
            name.setAttribute('x', 0); name.setAttribute('y', i * row + 12);
            name.textContent = (status || '✕') + ' ' + url.replace(/^https?:\\/\\/[^/]+/, '').slice(0, 50);
            const bar = document.createElementNS(svgNS, 'rect');
            bar.setAttribute('class', 'request');
            bar.setAttribute('x', label + (width - label - 10) * start / end);
            bar.setAttribute('y', i * row + 3);
            bar.setAttribute('width', Math.max(2, (width - label - 10) * time / end));
            bar.setAttribute('height', row - 5);
            bar.setAttribute('fill', colors[type] || '#888');
            const tip = document.createElementNS(svgNS, 'title');
            tip.textContent = type + ' ' + url + ': starts ' + ms(start) + ', takes ' + ms(time) + ', ' + kb(bytes);
            bar.append(tip);
            svg.append(name, bar);
          });
          const scale = document.createElementNS(svgNS, 'text');
          scale.setAttribute('x', width - 10); scale.setAttribute('y', page.w.length * row + 18);
          scale.setAttribute('text-anchor', 'end'); scale.textContent = ms(end);
          svg.append(scale);
          document.getElementById('waterfall').replaceChildren(page.w.length ? svg : text('p', 'No requests recorded.'));
          document.getElementById('screenshot').replaceChildren(...(page.sh ? [text('img', '', {src: page.sh, alt: 'screenshot'})] : []));
          detail.scrollIntoView();
        }
        document.getElementById('search').addEventListener('input', event => {
          const query = event.target.value.toLowerCase();
          matching = pages.filter(p => [p.u, p.t, p.o, p.e, p.k, String(p.s ?? '')].some(v => v && v.toLowerCase().includes(query)));
          offset = 0; render();
        });
        document.getElementById('previous').addEventListener('click', () => { offset = Math.max(0, offset - size); render(); });
        document.getElementById('next').addEventListener('click', () => { offset += size; render(); });
        render();
        const opened = location.hash.match(/^#page=(\\d+)$/);
        if (opened && pages[opened[1] - 1]) show(pages[opened[1] - 1]);
        """
}
