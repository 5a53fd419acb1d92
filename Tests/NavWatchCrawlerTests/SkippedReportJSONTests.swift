import Foundation
@testable import NavWatchCrawler
import Testing

/// A skipped report's line from its template is the encoder's, byte for byte.
@Suite struct SkippedReportJSONTests {
    @Test("every skip reason, with and without a parent, from a sitemap or not, at any depth and time")
    func sameAsEncoder() throws {
        let reasons: [PageLoadReport.SkipReason] = [.robots, .scope, .maxDepth, .maxPages, .nonHTTP, .ignored, .privateAddress]
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_801_987.4531), Date()]
        for reason in reasons {
            for parent in [nil, "http://a.test/p?q=1&r=%20#x"] {
                for kind in [FrontierEntry.Kind.page, .sitemapPage] {
                    for (depth, date) in zip([0, 1, 123_456], dates) {
                        let entry = FrontierEntry(url: "http://a.test/x/y?z=1", depth: depth, parent: parent, kind: kind)
                        let report = PageLoadReport.skipped(entry, reason, at: date)
                        let line = try #require(SkippedReportJSON.line(of: report))
                        #expect(line == report.jsonLine(by: PageLoadReport.encoder))
                    }
                }
            }
        }
    }

    @Test("a report changed after it was made, or with characters to escape, is left to the encoder")
    func leftToEncoder() {
        let entry = FrontierEntry(url: "http://a.test/", depth: 1, parent: "http://a.test/p")
        var changed = PageLoadReport.skipped(entry, .scope)
        changed.title = "T"
        #expect(SkippedReportJSON.line(of: changed) == nil)
        #expect(changed.jsonLine == changed.jsonLine(by: PageLoadReport.encoder))
        for url in ["http://a.test/\"q\"", "http://a.test/\\", "http://a.test/é", "http://a.test/\u{1}"] {
            let report = PageLoadReport.skipped(FrontierEntry(url: url, depth: 1, parent: nil), .nonHTTP)
            #expect(SkippedReportJSON.line(of: report) == nil)
            #expect(report.jsonLine == report.jsonLine(by: PageLoadReport.encoder))
        }
        #expect(SkippedReportJSON.line(of: PageLoadReport(url: "http://a.test/", depth: 0, parent: nil, outcome: .ok)) == nil)
    }
}
