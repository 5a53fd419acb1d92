import Foundation
@testable import NavWatch
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

    @Test("a page's console.warn is listed at level warning, as documented; log and info are not listed")
    func warningLevel() throws {
        let url = URL(string: "http://h/")!
        let navigation = Navigation(id: 1, url: url, origin: .load)
        let response = NavigationResponse(url: url, statusCode: 200, mimeType: "text/html", headers: [],
                                          expectedContentLength: nil, suggestedFilename: nil, canShowMIMEType: true)
        var state = PageLoadState(navigation: navigation)
        state.apply(.navigation(.didStartProvisionalNavigation(navigation)), at: .milliseconds(0))
        state.apply(.navigation(.didCommit(navigation, response)), at: .milliseconds(5))
        for (level, text) in [(ConsoleMessage.Level.warning, "careful"), (.log, "hello"), (.info, "fyi"), (.error, "boom")] {
            state.apply(.consoleMessage(ConsoleMessage(level: level, source: .consoleAPI, text: text, url: nil, line: 2,
                                                       navigation: navigation)), at: .milliseconds(6))
        }
        state.apply(.navigation(.didFinish(navigation)), at: .milliseconds(10))
        var report = PageLoadReport(url: url.absoluteString, depth: 0, parent: nil, outcome: .failed)
        report.record(state, facts: nil, now: .milliseconds(10))
        #expect(report.consoleMessages?.map { "\($0.level.rawValue) \($0.text)" } == ["warning careful", "error boom"])
        #expect(report.jsonLine.contains(#""console_messages":[{"level":"warning","line":2,"text":"careful","time":6}"#))
    }

    @Test("a report stored with the console's own spelling of a warning (warn) reads as warning")
    func storedWarn() throws {
        let line = #"{"attempts":1,"console_messages":[{"level":"warn","text":"careful"}],"depth":0,"fetched_at":"2026-01-01T00:00:00.000Z","links":0,"outcome":"ok","redirects":[],"resources":{"count":1,"failed":0,"transfer_bytes":10},"timings":{},"url":"http://h/"}"#
        let report = try PageLoadReport(json: line, requests: nil)
        #expect(report.consoleMessages?.map(\.level) == [.warning])
        #expect(throws: DecodingError.self) {
            try PageLoadReport(json: line.replacingOccurrences(of: #""warn""#, with: #""loud""#), requests: nil)
        }
    }
}
