import Foundation
@testable import NavWatchReports
@testable import NavWatchCLI
@testable import NavWatchCrawler
import Testing

@Suite("The HTML report's digest, folded one report at a time")
struct ReportDigestTests {
    @Test("the tables keep their leaders, ties in the order offered, and count the rest")
    func leaders() {
        var digest = ReportDigest()
        for n in 1...120 {
            var report = PageLoadReport(url: "http://h/\(n)", depth: 1, parent: nil, outcome: n % 2 == 0 ? .httpError : .ok)
            report.timings.finish = Double(n % 40)  // 39 is the slowest, three times
            report.resources.transferBytes = n
            report.resources.count = 3
            report.pageErrorCount = n % 3 == 0 ? n % 7 : 0
            if n % 5 == 0 { report.redirects = [.init(url: "http://h/from\(n)", status: 301)] }
            digest.add(report)
        }
        digest.add(PageLoadReport(url: "http://h/skipped", depth: 2, parent: nil, outcome: .skipped))
        #expect(digest.summary.reported == 121 && digest.summary.loaded == 120)
        #expect(digest.requests == 360 && digest.bytes == (1...120).reduce(0, +))
        #expect(digest.slowest.reports.map(\.url).prefix(4) == ["http://h/39", "http://h/79", "http://h/119", "http://h/38"])
        #expect(digest.slowest.reports.count == 10)
        #expect(digest.heaviest.reports.map(\.url) == (111...120).reversed().map { "http://h/\($0)" })
        #expect(digest.failing.offered == 60 && digest.failing.reports.map(\.url) == stride(from: 2, through: 100, by: 2).map { "http://h/\($0)" })
        #expect(digest.redirected.offered == 24 && digest.redirected.reports.count == 24)
        // Pages with page errors: n divisible by 3 and not by 7; most errors (6) first.
        #expect(digest.withErrors.offered == 35)
        #expect(digest.withErrors.reports.prefix(3).map(\.url) == ["http://h/6", "http://h/27", "http://h/48"])
        #expect(digest.slowest.reports.allSatisfy { $0.requests.isEmpty })
        #expect(digest.loadTimeCounts == [120, 0, 0, 0, 0, 0, 0, 0])
    }
}
