import Foundation
@testable import NavWatchCrawler
@testable import NavWatchReports
import Testing

@Suite("CrawlDiff and CrawlProblems: two crawls compared")
struct CrawlDiffTests {
    private static func page(_ path: String, _ outcome: PageLoadReport.Outcome = .ok, status: Int? = 200,
                             title: String? = nil, finish: Double? = 100) -> PageLoadReport {
        var report = PageLoadReport(url: "http://s.test" + path, depth: 1, parent: nil, outcome: outcome)
        report.status = status
        report.mime = "text/html"
        report.title = title
        report.timings.finish = finish
        report.pageErrors = []
        report.consoleMessages = []
        return report
    }

    private static func link(_ from: String, _ to: String) -> PageLink {
        PageLink(source: "http://s.test" + from, target: "http://s.test" + to, href: to, text: to)
    }

    private static func crawl(_ reports: [PageLoadReport], links: [PageLink]) -> ([PageLoadReport], LinkCheckResult) {
        (reports, LinkCheckResult(graph: LinkGraph(links: links), reports: reports))
    }

    /// Each change as `path kind[ problem]: before → after [referrers]` (`!` before regressions).
    private func rows(_ diff: CrawlDiff) -> [String] {
        diff.changes.map { change in
            let name = change.problem.map { "\(change.kind.rawValue) \($0.rawValue)" } ?? change.kind.rawValue
            let referrers = change.referrers.isEmpty ? "" : " [" + change.referrers.map { String($0.dropFirst(13)) }.joined(separator: " ") + "]"
            return "\(change.isRegression ? "!" : "")\(change.url.dropFirst(13)) \(name): \(change.before ?? "-") → \(change.after ?? "-")\(referrers)"
        }
    }

    @Test("every kind of change, in URL order, with the referrers of link problems and which are regressions")
    func everyKind() {
        var withError = Self.page("/b", title: "B")
        withError.pageErrors = [.init(message: "Error: boom", url: nil, line: 3)]
        withError.consoleMessages = [.init(level: .error, text: "Error: boom", url: nil, line: 3, time: 12),
                                     .init(level: .warning, text: "deprecated", url: nil, line: 1, time: 13)]
        var redirectedBefore = Self.page("/r"), redirectedAfter = Self.page("/r")
        redirectedBefore.redirects = [.init(url: "http://s.test/r", status: 302)]
        redirectedBefore.finalURL = "http://s.test/b"
        redirectedAfter.redirects = [.init(url: "http://s.test/r", status: 301)]
        redirectedAfter.finalURL = "http://s.test/c"
        var external = Self.page("/x", .httpError, status: 404)
        external.checkedWith = .head

        let (old, oldLinks) = Self.crawl(
            [Self.page("/", title: "Home"), Self.page("/a", title: "A"), Self.page("/b", title: "B"),
             Self.page("/c", title: "C"), Self.page("/gone", title: "Gone"), Self.page("/fixed", .httpError, status: 404),
             Self.page("/breaks"), Self.page("/slow", finish: 200), redirectedBefore],
            links: [Self.link("/", "/a"), Self.link("/", "/gone"), Self.link("/a", "/fixed"), Self.link("/c", "/breaks")])
        let (new, newLinks) = Self.crawl(
            [Self.page("/", title: "Home"), Self.page("/a", title: "A"), withError, Self.page("/c", title: "C, renamed"),
             Self.page("/new", title: "New"), Self.page("/fixed"), Self.page("/breaks", .httpError, status: 404),
             Self.page("/slow", finish: 901), redirectedAfter, external],
            links: [Self.link("/", "/a"), Self.link("/", "/new"), Self.link("/a", "/fixed"), Self.link("/c", "/breaks"),
                    Self.link("/b", "/x"), Self.link("/a", "/x")])
        let diff = CrawlDiff(old: old, oldLinks, new: new, newLinks,
                             visual: [.init(url: "http://s.test/c", percent: 12.5, image: "c-diff.png")])
        #expect(rows(diff) == [
            "!/b new page-error: - → Error: boom",
            "!/b new console-error: - → Error: boom",
            "!/breaks outcome: ok 200 → http-error 404",
            "!/breaks new broken-link: - → 404 Not Found [/c]",
            "/c title: \"C\" → \"C, renamed\"",
            "!/c visual: - → 12.50 % of pixels differ",
            "/fixed outcome: http-error 404 → ok 200",
            "/fixed fixed broken-link: 404 Not Found → - [/a]",
            "!/gone removed: ok 200 → -",
            "/new added: - → ok 200",
            "/r redirects: 302 http://s.test/r → http://s.test/b → 301 http://s.test/r → http://s.test/c",
            "!/slow slower: 200 ms → 901 ms",
            "!/x new broken-external: - → 404 Not Found [/a /b]",
        ])
        #expect(diff.pagesBefore == 9 && diff.pagesAfter == 9)
        #expect(diff.summary == "13 changes to 9 URLs, 8 regressions; 9 pages before, 9 after")
    }

    /// Whether `after` is slower than `before` by `thresholds`, as the diff words it; nil when it is not.
    private func slower(_ before: [Double], _ after: [Double], _ thresholds: CrawlDiff.SlowerThresholds = .init()) -> String? {
        func report(_ finishes: [Double]) -> PageLoadReport {
            var report = Self.page("/p", finish: finishes[0])
            for finish in finishes.dropFirst() {
                var timings = PageLoadReport.Timings()
                timings.finish = finish
                report.addRun(timings)
            }
            return report
        }
        return thresholds.slower(report(before), report(after)).map { "\($0.before) → \($0.after)" }
    }

    @Test("loaded once: slower needs both thresholds, +50 % and +500 ms by default")
    func slowerThresholds() {
        #expect(slower([200], [701]) == "200 ms → 701 ms")
        #expect(slower([200], [700]) == nil)        // 500 ms more: not beyond it
        #expect(slower([2000], [2900]) == nil)      // 900 ms more, but only 45 %
        #expect(slower([2000], [3001]) != nil)
        #expect(slower([900], [100]) == nil)
        #expect(slower([100], [111], .init(percent: 10, milliseconds: 0)) != nil)
        // Several runs on one side only: its median against the one load.
        #expect(slower([200, 210, 190], [701]) == "200 ms → 701 ms")
    }

    @Test("loaded several times: slower needs the test at its level and the minimum effect on the medians")
    func slowerByTheTest() throws {
        let before = [100.0, 104, 98, 101, 99, 103, 102]
        // Every run slower, by 40 %: p = 1/3432.
        #expect(slower(before, before.map { $0 * 1.4 })
                == "median 101 ms of 7 runs → median 141 ms of 7 runs; Mann-Whitney U 49, p = 0.00029")
        // Every run slower, but by 5 ms: below the minimum effect (10 % and 20 ms).
        #expect(slower(before, before.map { $0 + 5 }) == nil)
        // ... unless the thresholds allow it.
        #expect(slower(before, before.map { $0 + 5 }, .init(percent: 0, milliseconds: 0)) != nil)
        // A median 30 % higher, but runs that overlap: not significant at 0.01.
        let overlapping = [95.0, 160, 98, 170, 99, 130, 131]
        #expect(MannWhitneyTest(before: before, after: overlapping)!.pValue > 0.01)
        #expect(slower(before, overlapping) == nil)
        // Faster is never slower.
        #expect(slower(before.map { $0 * 1.4 }, before) == nil)
        // Three runs each cannot reach 0.01 (the smallest p is 1/20), and the diff says so.
        #expect(slower([100, 101, 102], [200, 201, 202]) == nil)
        let (old, oldLinks) = Self.crawl([Self.page("/")], links: [])
        var three = Self.page("/")
        for finish in [101.0, 102] { var timings = PageLoadReport.Timings(); timings.finish = finish; three.addRun(timings) }
        let diff = CrawlDiff(old: [three], oldLinks, new: [three], oldLinks)
        #expect(diff.slowerRule == "Slower: finish times larger by a one-sided Mann-Whitney U test at p ≤ 0.01, with a median "
                + "more than 10 % and 20 ms higher. With 3 and 3 runs no page can reach p ≤ 0.01 (the smallest p is 0.05): use more --runs.")
        #expect(CrawlDiff(old: old, oldLinks, new: old, oldLinks).slowerRule
                == "Slower: a page's time to finish grew by more than 50 % and 500 ms (one load per page; crawl with --runs 5 or more to test differences).")
        // Some pages with too few runs (their repeated loads failed), a page that failed on one side
        // (not counted), and a page loaded over another network (not compared).
        func page(_ path: String, _ finishes: [Double?], network: String? = nil) throws -> PageLoadReport {
            var report = Self.page(path, finish: finishes[0])
            report.network = try network.map { try NetworkProfile(parsing: $0) }
            for finish in finishes.dropFirst() { var timings = PageLoadReport.Timings(); timings.finish = finish; report.addRun(timings) }
            return report
        }
        let seven: [Double?] = [100, 101, 102, 103, 104, 105, 106]
        let earlier = [try page("/a", seven), try page("/b", seven), try page("/c", [100, nil, nil, nil, nil, 101, nil]),
                      try page("/d", [nil]), try page("/e", seven)]
        let later = [try page("/a", seven.map { $0! * 2 }), try page("/b", seven), try page("/c", seven), try page("/d", seven),
                     try page("/e", seven.map { $0! * 2 }, network: "3GFast")]
        let mixed = CrawlDiff(old: earlier, oldLinks, new: later, oldLinks)
        #expect(rows(mixed) == ["!/a slower: median 103 ms of 7 runs → median 206 ms of 7 runs; Mann-Whitney U 49, p = 0.00029"])
        #expect(mixed.slowerRule == "Slower: finish times larger by a one-sided Mann-Whitney U test at p ≤ 0.01, with a median "
                + "more than 10 % and 20 ms higher. 1 of 3 pages, with as few as 2 and 7 runs, cannot reach p ≤ 0.01 "
                + "(the smallest p is 0.028): use more --runs. Pages loaded over different networks are not compared for speed.")
    }

    @Test("a problem is the same whatever its detail; new, known and fixed against a baseline")
    func baseline() {
        let (old, oldLinks) = Self.crawl([Self.page("/"), Self.page("/a", .httpError, status: 404), Self.page("/b", .httpError, status: 500)],
                                         links: [Self.link("/", "/a"), Self.link("/", "/b")])
        let (new, newLinks) = Self.crawl([Self.page("/"), Self.page("/a", .httpError, status: 410), Self.page("/c", .httpError, status: 404)],
                                         links: [Self.link("/", "/a"), Self.link("/", "/c")])
        let compared = CrawlProblems(links: newLinks, reports: new).compared(with: CrawlProblems(links: oldLinks, reports: old))
        #expect(compared.new.map { "\($0.problem.url.dropFirst(13)) \($0.detail)" } == ["/c 404 Not Found"])
        #expect(compared.known.map { "\($0.problem.url.dropFirst(13)) \($0.detail)" } == ["/a 410 Gone"])
        #expect(compared.fixed.map { "\($0.problem.url.dropFirst(13)) \($0.detail)" } == ["/b 500 Internal Server Error"])
    }

    @Test("a crawl compared with itself has no changes")
    func unchanged() {
        let (reports, links) = Self.crawl([Self.page("/"), Self.page("/a", .httpError, status: 404)], links: [Self.link("/", "/a")])
        let diff = CrawlDiff(old: reports, links, new: reports, links)
        #expect(diff.changes.isEmpty)
        #expect(diff.summary == "0 changes to 0 URLs, 0 regressions; 2 pages before, 2 after")
    }
}
