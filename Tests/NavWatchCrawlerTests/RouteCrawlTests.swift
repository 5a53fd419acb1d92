import Foundation
import NavWatch
@testable import NavWatchCrawler
import NavWatchTestSupport
import Testing
import WebKitThread

@Suite("Crawling the routes of single-page apps")
struct RouteCrawlTests {
    @Test("hash routes of one document load one after another in the same view (WebKit alone would only scroll)")
    func hashRoutesInOneView() async throws {
        let app = try await SinglePageApp.start()
        defer { Task { await app.shutdown() } }
        let titles = try await withDeadline("four loads in one view", within: .seconds(120)) {
            try await Task { @WebKitActor in
                let loader = PageLoader(configuration: WebViewConfiguration(), recycleAfter: 1000, settle: .milliseconds(50),
                                        views: 1)
                defer { loader.close() }
                var titles: [String] = []
                for path in ["/app/", "/app/#/inbox", "/app/#/outbox", "/app/#/outbox"] {
                    let entry = FrontierEntry(url: app.base + path, depth: 0, parent: nil)
                    // The first load starts the view's web process: 30 s, for a machine busy with the other suites.
                    let report = try await loader.load(entry, timeout: .seconds(30)).completed().report
                    titles.append("\(report.outcome.rawValue) \(report.title ?? "-")")
                }
                return titles
            }.value
        }
        #expect(titles == ["ok Home", "ok Inbox", "ok Outbox", "ok Outbox"])
    }

    @Test("with routes: every route, reached by links, buttons, list items or hashes, loaded directly; those broken there; no form sent")
    func routes() async throws {
        let app = try await SinglePageApp.start()
        defer { Task { await app.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [URL(string: app.base + "/app/")!])
        configuration.routeClicks = CrawlConfiguration.defaultRouteClicks
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let reports = try await store.allReports()
        let relative = { (text: String) in text.replacingOccurrences(of: app.base, with: "") }
        #expect(reports.filter(\.wasLoaded).map { "\(relative($0.url)) \($0.status ?? 0) \($0.title ?? "-")" }.sorted() == [
            "/app/ 200 Home",
            "/app/#/drafts 200 Drafts", "/app/#/inbox 200 Inbox", "/app/#/outbox 200 Outbox", "/app/#/trash 200 Trash",
            "/app/about 200 About", "/app/pricing 200 Pricing", "/app/profile 200 Landing", "/app/secret 404 Missing",
            "/app/settings 200 Settings", "/app/team 200 Team",
            "/missing-about 404 Missing", "/missing-settings 404 Missing",
        ])
        // Each route's report (of its direct load) says how a click reached it in the page.
        #expect(reports.compactMap { report in report.route.map { route in
            "\(relative(report.url)) \(route.reached.rawValue) from \(relative(route.from)) \(route.element) \"\(route.text)\" \(route.titleInPage ?? "-")"
        } }.sorted() == [
            #"/app/#/drafts fragment from /app/ a "Drafts" Drafts"#, #"/app/#/inbox fragment from /app/ a "Inbox" Inbox"#,
            #"/app/#/outbox fragment from /app/ a "Outbox" Outbox"#, #"/app/#/trash fragment from /app/ a "Trash" Trash"#,
            #"/app/profile push from /app/ li "Profile" Profile"#, #"/app/secret push from /app/ button "Secret" Secret"#,
            #"/app/settings push from /app/ button "Settings" Settings"#,
        ])
        let graph = try await store.linkGraph()
        // Where each route was reached from, by which element, and how.
        #expect(graph.links.filter { $0.reached != nil }.map {
            "\(relative($0.source)) \($0.element) \"\($0.text)\" \($0.reached!.rawValue) \(relative($0.target)) \($0.routeTitle ?? "-")"
        }.sorted() == [
            #"/app/ a "Drafts" fragment /app/#/drafts Drafts"#, #"/app/ a "Inbox" fragment /app/#/inbox Inbox"#,
            #"/app/ a "Outbox" fragment /app/#/outbox Outbox"#, #"/app/ a "Trash" fragment /app/#/trash Trash"#,
            #"/app/ button "Secret" push /app/secret Secret"#, #"/app/ button "Settings" push /app/settings Settings"#,
            #"/app/ li "Profile" push /app/profile Profile"#,
        ])
        let result = LinkCheckResult(graph: graph, reports: reports)
        // `#nothing` is no route (the router ignores it) and no element: a missing fragment on each page with the nav.
        let nothing = #"missing-fragment no element with id or name "nothing""#
        #expect(result.broken.map { "\(relative($0.target)) \($0.problem!.rawValue) \($0.detail)" } == [
            "/app/#nothing \(nothing)", "/app/about#nothing \(nothing)", "/app/pricing#nothing \(nothing)",
            #"/app/profile route-differs "Profile" in the page, "Landing" loaded directly"#,
            "/app/secret route-not-loadable works in the page; loaded directly: 404 Not Found",
            "/app/settings#nothing \(nothing)", "/app/team#nothing \(nothing)",
            "/missing-about http-error 404 Not Found",
            "/missing-settings http-error 404 Not Found",
        ])
        #expect(app.postCount == 0)
        await store.close()
    }
}
