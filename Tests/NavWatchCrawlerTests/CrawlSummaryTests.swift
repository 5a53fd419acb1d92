import Foundation
import NavWatchCrawler
import Testing

@Suite("The crawl summary's counters")
struct CrawlSummaryTests {
    private func report(_ n: Int, outcome: PageLoadReport.Outcome = .ok, status: Int? = 200, finish: Double? = nil)
        -> PageLoadReport {
        var report = PageLoadReport(url: "http://h/\(n)", depth: 1, parent: nil, outcome: outcome)
        report.status = status
        report.timings.finish = finish
        return report
    }

    @Test("outcomes, statuses, pages with errors, and load-time percentiles of 1…1000 ms")
    func counters() {
        var reports = (1...1000).map { report($0, status: $0 <= 990 ? 200 : 404, finish: Double($0)) }
        reports[3].pageErrorCount = 2
        reports[4].console = .init(errors: 1, warnings: 0)
        reports[5].console = .init(errors: 0, warnings: 3)
        var checked = report(1004, outcome: .timeout, status: nil), resource = report(1005, outcome: .httpError, status: 404)
        checked.external = true
        checked.checkedWith = .head
        resource.resource = true
        resource.checkedWith = .page
        reports += [report(1001, outcome: .skipped, status: nil), report(1002, outcome: .blocked, status: nil),
                    report(1003, outcome: .failed, status: nil), checked, resource]
        let summary = CrawlSummary(reports)
        #expect(summary.tallies == [.loaded: 1001, .checked: 2, .skipped: 1, .blocked: 1])
        #expect((summary.loaded, summary.checked, summary.skipped, summary.blocked, summary.reported) == (1001, 2, 1, 1, 1005))
        #expect(summary.failed == 2)
        #expect((summary.resourcesChecked, summary.resourcesFailing) == (1, 1))
        #expect(summary.outcomes == [.ok: 1000, .failed: 1])
        #expect(summary.statuses == [200: 990, 404: 10])
        #expect(summary.pagesWithPageErrors == 1 && summary.pagesWithConsoleErrors == 1)
        #expect(summary.loadTime(percentile: 50) == 500)
        #expect(summary.loadTime(percentile: 95) == 950)
        #expect(summary.loadTime(percentile: 100) == 1000)
        #expect(CrawlSummary().loadTime(percentile: 50) == nil)
    }
}
