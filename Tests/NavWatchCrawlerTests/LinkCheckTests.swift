import Foundation
import NavWatchCrawler
import NavWatchTestSupport
import Testing

@Suite("Link checking from the rendered page")
struct LinkCheckTests {
    /// `target problem detail [source "text", ...]` with the two sites' bases as A and B.
    private func rows(_ targets: [CheckedTarget], _ site: LinkSite) -> [String] {
        targets.map { target in
            let from = target.referrers.map { "\(site.relative($0.source)) \"\($0.text)\"" }.joined(separator: ", ")
            return site.relative("\(target.target) \(target.problem?.rawValue ?? "-") \(target.detail) [\(from)]")
        }.sorted()
    }

    @Test("every broken target with every page that links to it; external links, fragments, sitemap orphans")
    func brokenLinks() async throws {
        let site = try await LinkSite.start()
        defer { Task { await site.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [URL(string: site.base + "/")!])
        configuration.checkExternal = true
        configuration.externalDelay = .milliseconds(50)
        configuration.sitemap = .auto
        configuration.backoff = .milliseconds(50)
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) {
            try await crawler.run { _ in }
        }
        let reports = try await store.allReports()
        let result = LinkCheckResult(graph: try await store.linkGraph(), reports: reports)
        #expect(rows(result.broken, site) == [
            #"A/a#nowhere missing-fragment no element with id or name "nowhere" [A/ "Missing section"]"#,
            #"A/js-missing http-error 404 Not Found [A/ "Added by script"]"#,
            #"A/missing http-error 404 Not Found [A/a "Missing page", A/b "gone", A/c "Broken picture"]"#,
            #"A/moved http-error 404 Not Found [A/ "Moved away"]"#,
            #"B/gone http-error 404 Not Found [A/ "Gone elsewhere"]"#,
        ])
        #expect(result.orphans.map(site.relative) == ["A/orphan"])
        let byURL = Dictionary(reports.map { (site.relative($0.url), $0) }, uniquingKeysWith: { $1 })
        #expect(byURL["B/gone"]?.checkedWith == .head)
        #expect(byURL["B/head-refused"]?.checkedWith == .get && byURL["B/head-refused"]?.status == 200)
        #expect(byURL["B/busy"]?.status == 200 && byURL["B/busy"]?.attempts == 2)
        #expect(byURL["A/orphan"]?.foundInSitemap == true && byURL["A/orphan"]?.outcome == .ok)
        #expect(byURL["A/a"]?.foundInSitemap == true && byURL["A/b"]?.foundInSitemap == nil)
        // Links that are not broken: the present fragment, `#top`, the checked external pages.
        let fine = Set(result.targets.filter { $0.problem == nil }.map { site.relative($0.target) })
        #expect(fine == ["A/", "A/a", "A/b", "A/c", "B/busy", "B/head-refused"])
        await store.close()
    }
}
