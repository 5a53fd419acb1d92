import Foundation
@testable import NavWatchCrawler
import Testing

/// A stored report's line, read as a crawl's reports are read back: the
/// skipped reports' fast path (`SkippedReportJSON.report(fromLine:)`) gives
/// exactly what the decoder gives, or leaves the line to it; it never reads
/// a line the decoder refuses, nor reads one otherwise.
@Suite struct SkippedReportFuzzTests {
    @Test("skipped reports' lines under generated input")
    func skippedReportLines() {
        FuzzTarget(name: "skipped-report", dictionary: Self.dictionary, generators: [{ Array(Self.line(&$0).utf8) }],
                   maximumSize: 4 << 10, check: Self.check).run()
    }

    static let dictionary = ["\"skip_reason\":\"", "\"parent\":\"", "\"found_in_sitemap\":true", "\"depth\":", "\"url\":\"",
                             "\"fetched_at\":\"", "\"outcome\":\"skipped\"", "scope", "robots", "max-depth", "\\\"", "\\/", ",", "}",
                             "\"", "2026-11-29T12:15:08.874Z", "-1", "\u{E9}"]

    /// A skipped report's line, of any reason, with a parent or not, found in a sitemap or not.
    static func line(_ random: inout FuzzRandom) -> String {
        let reasons: [PageLoadReport.SkipReason] = [.robots, .scope, .maxDepth, .maxPages, .nonHTTP, .ignored, .privateAddress]
        let entry = FrontierEntry(url: "http://a.test/" + random.pick(["", "x?y=1", "p/q#f", "%20"]), depth: random.pick([0, 1, 42]),
                                  parent: random.oneIn(2) ? nil : "http://a.test/p", kind: random.oneIn(3) ? .sitemapPage : .page)
        return PageLoadReport.skipped(entry, random.pick(reasons), at: Date(timeIntervalSince1970: 1_795_801_987.453)).jsonLine
    }

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let line = String(decoding: bytes, as: UTF8.self)
        guard let read = SkippedReportJSON.report(fromLine: line) else { return false }
        let decoded = try? PageLoadReport.decoder.decode(PageLoadReport.self, from: Data(line.utf8))
        try require(decoded == read, "\(line) reads as \(read), the decoder reads \(decoded.map { "\($0)" } ?? "nothing")")
        return true
    }
}
