import Foundation
@testable import NavWatchCrawler
import Testing

@Suite("Console counts and page errors in reports")
struct PageLoadReportConsoleTests {
    @Test("a report stored before navwatch counted console messages decodes, with none")
    func olderReport() throws {
        let line = #"{"attempts":1,"depth":0,"fetched_at":"2026-01-01T00:00:00.000Z","links":0,"outcome":"ok","redirects":[],"resources":{"count":1,"failed":0,"transfer_bytes":10},"timings":{},"url":"http://h/"}"#
        let report = try PageLoadReport(json: line, requests: nil)
        #expect(report.console == nil && report.pageErrors == nil && report.pageErrorCount == nil)
        #expect(!report.jsonLine.contains("console") && !report.jsonLine.contains("page_error"))
    }

    @Test("the fields round-trip, snake_case, a page error's unknown place as null")
    func roundTrip() throws {
        var report = PageLoadReport(url: "http://h/", depth: 0, parent: nil,
                                    fetchedAt: Date(timeIntervalSince1970: 1_800_000_000.25), outcome: .ok)
        report.console = .init(errors: 2, warnings: 1)
        report.pageErrors = [.init(message: "TypeError: x", url: "http://h/app.js", line: 3), .init(message: "42", url: nil, line: nil)]
        report.pageErrorCount = 2
        let line = report.jsonLine
        #expect(line.contains(#""console":{"errors":2,"warnings":1}"#))
        #expect(line.contains(#""page_error_count":2,"page_errors":[{"line":3,"message":"TypeError: x","url":"http://h/app.js"},{"message":"42"}]"#))
        #expect(try PageLoadReport(json: line, requests: nil) == report)
    }
}
