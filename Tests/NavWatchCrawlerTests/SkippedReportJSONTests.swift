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

    @Test("a skipped report's line reads back as the decoder reads it, for every shape")
    func readBack() throws {
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_801_987.4531), Date()]
        for reason in [PageLoadReport.SkipReason.robots, .scope, .maxDepth, .maxPages, .nonHTTP, .ignored, .privateAddress] {
            for parent in [nil, "http://a.test/p?q=1&r=%20#x"] {
                for kind in [FrontierEntry.Kind.page, .sitemapPage] {
                    for (depth, date) in zip([0, 1, 123_456], dates) {
                        let entry = FrontierEntry(url: "http://a.test/x/y?z=1", depth: depth, parent: parent, kind: kind)
                        let line = PageLoadReport.skipped(entry, reason, at: date).jsonLine
                        let decoded = try PageLoadReport.decoder.decode(PageLoadReport.self, from: Data(line.utf8))
                        #expect(SkippedReportJSON.report(fromLine: line) == decoded, "\(line)")
                        #expect(try PageLoadReport(json: line, requests: nil) == decoded)
                    }
                }
            }
        }
    }

    @Test("any other line is left to the decoder: changed, escaped, cut, with a field more, not skipped")
    func othersLeftToDecoder() throws {
        let entry = FrontierEntry(url: "http://a.test/", depth: 1, parent: "http://a.test/p")
        let line = PageLoadReport.skipped(entry, .scope).jsonLine
        var changed = PageLoadReport.skipped(entry, .scope)
        changed.title = "T"
        let escaped = PageLoadReport.skipped(FrontierEntry(url: "http://a.test/\"q\"", depth: 1, parent: nil), .nonHTTP)
        let lines = [
            changed.jsonLine, escaped.jsonLine, String(line.dropLast()), String(line.dropLast()) + ",\"z\":1}",
            line.replacingOccurrences(of: "\"skip_reason\":\"scope\"", with: "\"skip_reason\":\"bogus\""),
            line.replacingOccurrences(of: "\"depth\":1", with: "\"depth\":x"),
            PageLoadReport(url: "http://a.test/", depth: 0, parent: nil, outcome: .ok).jsonLine,
        ]
        for other in lines {
            #expect(SkippedReportJSON.report(fromLine: other) == nil, "\(other)")
        }
        #expect(try PageLoadReport(json: changed.jsonLine, requests: nil).title == "T")
    }
}
