import Foundation
import LoopbackServer
import NavWatchCLI
import NavWatchCrawler
import NavWatchGuard
import NavWatchTestSupport
import Synchronization
import Testing
import WebKitThread

@Suite("One report path: navwatch URL and navwatch crawl report one page alike")
struct WatchReportTests {
    /// A page that paints nothing, whose image the guard blocks (it is on
    /// 127.0.0.2), and which logs an error after its load event: a guard's
    /// count, a late window and a paint reason to report. It requests
    /// nothing late: the bytes a late request shows in a report depend on
    /// whether it ended before the page's facts were read at the finish,
    /// which a busy machine decides (a busy `Scripts/test` run saw the
    /// crawl read them first and the watcher after).
    private static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/":
            return .html("""
                <!doctype html><title>Late</title><img src="http://127.0.0.2:8080/pixel.png" alt="">
                <script>addEventListener("load", () => setTimeout(() => console.error("late"), 50))</script>
                """)
        default: return .text("not found", status: 404)
        }
    }

    /// `report` as JSON, without what differs from one load to the next:
    /// times, and the dates of the load.
    private static func fields(_ report: PageLoadReport) throws -> [String: String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8)) as? [String: Any])
        var fields: [String: String] = [:]
        for (key, value) in object where !["started_at", "fetched_at", "timings"].contains(key) {
            fields[key] = String(decoding: try JSONSerialization.data(withJSONObject: Self.untimed(value),
                                                                      options: [.sortedKeys, .fragmentsAllowed]),
                                 as: UTF8.self)
        }
        return fields
    }

    /// `value` without the keys that are times.
    private static func untimed(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]:
            object.filter { !$0.key.hasSuffix("_ms") && !["time", "first_byte_to_last_resource"].contains($0.key) }
                .mapValues(untimed)
        case let array as [Any]: array.map(untimed)
        default: value
        }
    }

    @Test("the watcher's report of a page (--har) has every field of the crawl's: guard, blocked requests, late window, paint")
    func sameFields() async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let url = server.url("/")

        let privateAddressGuard = try await PrivateAddressGuard.start(allowedHosts: ["127.0.0.1"])
        defer { Task { await privateAddressGuard.shutdown() } }
        var options = Watcher.Options()
        options.recordRequests = true
        options.privateAddressGuard = privateAddressGuard
        options.configuration.networkProxy = privateAddressGuard.proxyURL
        let watcher = await Watcher(options: options, emit: { _ in })
        let summaries = try await withDeadline("the watcher to end", within: .seconds(60)) {
            try await watcher.run([url])
        }
        let watched = try #require(summaries.first?.report)

        let path = temporaryPath("watch-report.db")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = CrawlConfiguration(seeds: [url])
        configuration.maxDepth = 0
        let crawler = try Crawler(configuration: configuration, store: try SQLiteCrawlStore(path: path))
        let reports = Mutex<[PageLoadReport]>([])
        _ = try await withDeadline("the crawl to end", within: .seconds(60)) {
            try await crawler.run { report in reports.withLock { $0.append(report) } }
        }
        let crawled = try #require(reports.withLock { $0 }.first { $0.url == url.absoluteString })

        // What is reported, and that it is there to compare.
        #expect(watched.outcome == .ok && watched.resources.blocked == 1)
        #expect(watched.late?.closedBy == .quiet && watched.late?.consoleErrors == 1)
        #expect(watched.timings.firstContentfulPaintUnavailable == .noPaintInWindow)
        #expect(watched.requests.map(\.url) == [url.absoluteString, "http://127.0.0.2:8080/pixel.png"])
        let watchedFields = try Self.fields(watched), crawledFields = try Self.fields(crawled)
        #expect(Set(watchedFields.keys) == Set(crawledFields.keys))
        for key in Set(watchedFields.keys).union(crawledFields.keys).sorted() {
            #expect(watchedFields[key] == crawledFields[key], "\(key)")
        }
    }
}
