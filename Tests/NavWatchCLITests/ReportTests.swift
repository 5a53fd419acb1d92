import Foundation
@testable import NavWatchReports
import LoopbackServer
@testable import NavWatchCLI
import NavWatchCrawler
import NavWatchRx
import NavWatchTestSupport
import Testing

private let site = Task { try await LoopbackServer.start(route: FixtureSite.route) }

private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("navwatch report, read in a real browser", .serialized)
@WebKitActor
struct ReportTests {
    @Test("the figures, tables, search, waterfall and screenshot match the crawl database")
    func reportInBrowser() async throws {
        let server = try await site.value
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/crawl.db", shots = directory + "/shots", out = directory + "/report.html"
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", "--screenshots", shots,
                                                   server.url("/rich").absoluteString, server.url("/status/404").absoluteString,
                                                   server.url("/redirect/2").absoluteString])
        #expect(crawl.status == 0)
        let report = try await NavwatchProcess.run(["report", "--db", db, "--out", out, "--screenshots", shots])
        let stored = try await SQLiteCrawlStore(path: db).allReports().filter { $0.wasLoaded && $0.isPage }
        #expect(report.status == 0 && report.stderr == "report: \(stored.count) pages in \(out)\n")
        #expect(stored.count == 3)

        let view = try WebView()
        defer { view.close() }
        let outcome = try await view.rx.pageLoad(URL(fileURLWithPath: out))
        guard case .finished(_, _, let title) = outcome else { Issue.record("\(outcome)"); return }
        #expect(title == "navwatch report: \(db)")
        struct Figures: Decodable, Equatable { var pages, ok, failing, requests: String }
        let figures = try await view.evaluateJavaScript("""
            ({pages: document.getElementById('figure-pages').textContent, ok: document.getElementById('figure-ok').textContent,
              failing: document.getElementById('figure-failing').textContent,
              requests: document.getElementById('figure-requests').textContent})
            """, as: Figures.self)
        #expect(figures == Figures(pages: "\(stored.count)", ok: "\(stored.filter { $0.outcome == .ok }.count)",
                                   failing: "\(stored.filter { $0.outcome != .ok && $0.outcome != .skipped }.count)",
                                   requests: "\(stored.reduce(0) { $0 + $1.requests.count })"))
        #expect(try await view.evaluateJavaScript("document.querySelectorAll('#pages tbody tr').length", as: Int.self) == 3)
        #expect(try await view.evaluateJavaScript("document.querySelectorAll('#redirects tbody tr').length", as: Int.self) == 1)
        #expect(try await view.evaluateJavaScript("document.querySelectorAll('#failing tbody tr').length", as: Int.self) == 1)

        // Search narrows the table (by outcome: a status such as 404 would also match a
        // server port that contains it); a row opens its page's waterfall and screenshot.
        let search = """
            (() => { const box = document.getElementById('search'); box.value = 'http-error';
              box.dispatchEvent(new Event('input')); return document.querySelectorAll('#pages tbody tr').length; })()
            """
        #expect(try await view.evaluateJavaScript(search, as: Int.self) == 1)
        let rich = try #require(stored.first { $0.url == server.url("/rich").absoluteString })
        let open = """
            (() => { const box = document.getElementById('search'); box.value = '/rich';
              box.dispatchEvent(new Event('input')); document.querySelector('#pages tbody tr').click();
              return {bars: document.querySelectorAll('#waterfall rect.request').length,
                      title: document.getElementById('detail-title').textContent,
                      image: document.querySelector('#screenshot img').getAttribute('src'),
                      hash: location.hash}; })()
            """
        struct Detail: Decodable { var bars: Int; var title: String; var image: String; var hash: String }
        let detail = try await view.evaluateJavaScript(open, as: Detail.self)
        #expect(detail.bars == rich.requests.count && detail.bars >= 6)
        #expect(detail.title == rich.url)
        #expect(detail.image == "shots/" + (rich.screenshot ?? "-"))
        #expect(detail.hash == "#page=\((stored.firstIndex(of: rich) ?? -1) + 1)")
        // The screenshot is really there: the image decodes to the viewport's size.
        let width = """
            new Promise(resolve => { const image = document.querySelector('#screenshot img');
              if (image.complete) resolve(image.naturalWidth); else image.onload = () => resolve(image.naturalWidth); })
            """
        #expect(try await evaluateAsync(width, in: view) == 1280)
    }

    @Test("the script's data for a page has its keys sorted, so the same crawl makes the same bytes")
    func sortedData() {
        var report = PageLoadReport(url: "http://h/a", depth: 1, parent: nil, outcome: .ok)
        report.status = 200
        report.title = "A"
        report.timings.finish = 12
        report.resources.transferBytes = 5
        let html = HTMLReport.html([report], source: "s", screenshots: nil)
        #expect(html.contains(#"{"b":5,"f":12,"n":0,"o":"ok","s":200,"t":"A","u":"http:\/\/h\/a","w":[]}"#))
    }

    @Test("10,000 pages: one page of 50 rows at a time, paging and search over all of them")
    func tenThousandPages() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var reports: [PageLoadReport] = []
        for index in 0..<10_000 {
            var report = PageLoadReport(url: "http://h/p\(index)", depth: 1, parent: "http://h/", outcome: index % 100 == 0 ? .failed : .ok)
            report.status = index % 100 == 0 ? nil : 200
            report.timings.finish = Double(index % 3000)
            report.resources.transferBytes = index * 10
            reports.append(report)
        }
        let html = HTMLReport.html(reports, source: "synthetic", screenshots: nil)
        #expect(html.utf8.count < 2_000_000)
        let out = directory + "/report.html"
        #expect(FileManager.default.createFile(atPath: out, contents: Data(html.utf8)))
        let view = try WebView()
        defer { view.close() }
        _ = try await view.rx.pageLoad(URL(fileURLWithPath: out))
        struct Table: Decodable, Equatable { var rows: Int; var count: String; var position: String }
        let table = """
            ({rows: document.querySelectorAll('#pages tbody tr').length, count: document.getElementById('page-count').textContent,
              position: document.getElementById('pager-position').textContent})
            """
        #expect(try await view.evaluateJavaScript(table, as: Table.self) == Table(rows: 50, count: "10000 of 10000 pages", position: "1–50"))
        _ = try await view.evaluateJavaScript("document.getElementById('next').click()")
        #expect(try await view.evaluateJavaScript(table, as: Table.self) == Table(rows: 50, count: "10000 of 10000 pages", position: "51–100"))
        _ = try await view.evaluateJavaScript("""
            (() => { const box = document.getElementById('search'); box.value = 'failed'; box.dispatchEvent(new Event('input')); })()
            """)
        #expect(try await view.evaluateJavaScript(table, as: Table.self) == Table(rows: 50, count: "100 of 10000 pages", position: "1–50"))
        #expect(try await view.evaluateJavaScript("document.getElementById('figure-failing').textContent", as: String.self) == "100")
    }

    @Test("the pages with JavaScript errors: most page errors first, the first error and where it was thrown")
    func javaScriptErrors() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func page(_ path: String, pageErrors: [String], consoleErrors: Int) -> PageLoadReport {
            var report = PageLoadReport(url: "http://h\(path)", depth: 1, parent: nil, outcome: .ok)
            report.console = .init(errors: consoleErrors, warnings: 1)
            report.pageErrors = pageErrors.map { .init(message: $0, url: "http://h\(path).js", line: 7) }
            report.pageErrorCount = pageErrors.count
            return report
        }
        let reports = [page("/clean", pageErrors: [], consoleErrors: 0), page("/logs", pageErrors: [], consoleErrors: 3),
                       page("/throws", pageErrors: ["TypeError: <x> is null", "Error: later"], consoleErrors: 1)]
        let out = directory + "/report.html"
        #expect(FileManager.default.createFile(atPath: out, contents: Data(HTMLReport.html(reports, source: "s", screenshots: nil).utf8)))
        let view = try WebView()
        defer { view.close() }
        _ = try await view.rx.pageLoad(URL(fileURLWithPath: out))
        let rows = try await view.evaluateJavaScript("""
            [...document.querySelectorAll('#errors tbody tr')].map(row => [...row.cells].map(cell => cell.textContent))
            """, as: [[String]].self)
        #expect(rows == [["http://h/throws", "2", "1", "1", "TypeError: <x> is null http://h/throws.js:7"],
                         ["http://h/logs", "0", "3", "1", "–"]])
        let summary = CrawlSummaryText(CrawlSummary(reports)).text
        #expect(summary.contains("  javascript: 1 pages with page errors, 2 with console errors (navwatch report lists them)\n"))
    }

    @Test("links: broken targets and missing fragments with the pages and texts that link to them, links not followed apart")
    func links() async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/":
                return .html(#"""
                    <title>home</title><a href="/gone">gone for good</a> <a href="/b#nowhere">to b</a>
                    <a href="/b">b</a> <a href="http://example.invalid/x">elsewhere</a> <a href="/gone">again</a>
                    """#)
            case "/b": return .html(#"<title>b</title><p id="here">b</p><a href="/gone">also gone</a>"#)
            default: return .html("<title>Missing</title>", status: 404)
            }
        }
        defer { Task { await server.shutdown() } }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = directory + "/crawl.db", out = directory + "/report.html"
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, server.url("/").absoluteString])
        #expect(crawl.status == 0)
        let report = try await NavwatchProcess.run(["report", "--db", db, "--out", out])
        #expect(report.status == 0 && report.stderr == "report: 3 pages in \(out)\n")

        let view = try WebView()
        defer { view.close() }
        _ = try await view.rx.pageLoad(URL(fileURLWithPath: out))
        struct Figures: Decodable, Equatable { var pages, skipped, broken, fragments: String }
        #expect(try await view.evaluateJavaScript("""
            ({pages: document.getElementById('figure-pages').textContent, skipped: document.getElementById('figure-skipped').textContent,
              broken: document.getElementById('figure-broken').textContent,
              fragments: document.getElementById('figure-fragments').textContent})
            """, as: Figures.self) == Figures(pages: "3", skipped: "1", broken: "1", fragments: "1"))
        let rows = { (id: String) in
            try await view.evaluateJavaScript("""
                [...document.querySelectorAll('#\(id) tbody tr')].map(row => [...row.cells].map(cell => cell.textContent))
                """, as: [[String]].self)
        }
        let home = server.url("/").absoluteString, b = server.url("/b").absoluteString
        #expect(try await rows("broken-links") == [[server.url("/gone").absoluteString, "404 Not Found",
                                                    "\(home) “again”\(home) “gone for good”\(b) “also gone”"]])
        #expect(try await rows("missing-fragments") == [[b + "#nowhere", "no element with id or name \"nowhere\"", "\(home) “to b”"]])
        #expect(try await rows("not-followed") == [["outside the crawl's scope (--check-external checks them)", "1"]])
        // The table of pages loaded leaves the link not followed out; each row draws its requests.
        struct Row: Decodable, Equatable { var url: String; var bars: Int }
        let pages = try await view.evaluateJavaScript("""
            [...document.querySelectorAll('#pages tbody tr')].map(row => ({url: row.cells[0].textContent,
              bars: row.querySelectorAll('svg.mini rect').length}))
            """, as: [Row].self)
        #expect(pages.map(\.url).sorted() == [home, server.url("/gone").absoluteString, b].sorted())
        #expect(pages.allSatisfy { $0.bars == 1 })
        // Each metric: its summary, distribution and highest pages; LCP only where the engine has it.
        struct Metric: Decodable, Equatable { var id: String; var summary: String; var highest: Int; var chart: Bool }
        let metrics = try await view.evaluateJavaScript("""
            [...document.querySelectorAll('.metric')].map(m => ({id: m.id, summary: m.querySelector('p').textContent,
              highest: m.querySelectorAll('.highest li').length, chart: m.querySelector('svg.chart') !== null}))
            """, as: [Metric].self)
        #expect(metrics.map(\.id) == ["ttfb", "fcp", "lcp", "dcl", "load", "last-resource", "render-blocking", "dom-size",
                                       "largest-resource"].map { "metric-" + $0 })
        let dom = try #require(metrics.first { $0.id == "metric-dom-size" })
        #expect(dom.summary.hasPrefix("median ") && dom.summary.hasSuffix(" · 3 pages") && dom.highest == 3 && dom.chart)
        let lcp = try #require(metrics.first { $0.id == "metric-lcp" })
        #expect(lcp == Metric(id: "metric-lcp", summary: "not measured: " + PageMetrics.LCPUnavailable.noLCPEntries.rawValue, highest: 0, chart: false)
                || lcp.summary.hasSuffix(" · 3 pages"))
    }

    /// Evaluates a script whose value is a promise, and returns what it resolves to.
    private func evaluateAsync(_ script: String, in view: WebView) async throws -> Int {
        _ = try await view.evaluateJavaScript("window.__result = undefined; Promise.resolve(\(script)).then(v => window.__result = v); null")
        for _ in 0..<100 {
            if case .number(let value) = try await view.evaluateJavaScript("window.__result ?? null") { return Int(value) }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DeadlineExceeded(what: "the promise of \(script)", timeout: .seconds(5))
    }
}
