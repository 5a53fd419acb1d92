import Foundation
import LoopbackServer
import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// `Crawler.reports()`: the crawl as an asynchronous sequence, through the
/// public API alone.
@Suite("Crawler.reports()")
struct CrawlerReportsTests {
    /// A chain of 12 pages, each linking to the next two, answered after 50 ms;
    /// `asked` counts the pages asked for.
    private static func route(_ request: LoopbackRequest, asked: borrowing Mutex<Int>) -> LoopbackResponse {
        asked.withLock { $0 += 1 }
        guard request.path.hasPrefix("/n/"), let n = Int(request.path.dropFirst(3)), (0..<12).contains(n) else {
            return .html("<title>none</title>", status: 404)
        }
        let links = [n + 1, n + 2].filter { $0 < 12 }.map { "<a href=\"/n/\($0)\">next</a>" }.joined()
        return .delayed(.milliseconds(50), .html("<!doctype html><title>Page \(n)</title>\(links)"))
    }

    private static func configuration(_ server: LoopbackServer) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(seeds: [server.url("/n/0")])
        configuration.allowPrivateAddresses = true
        configuration.obeyRobots = false
        configuration.concurrency = 1
        return configuration
    }

    @Test("every report once, in the order stored; breaking off cancels the crawl, and a new crawler resumes it")
    func sequence() async throws {
        let asked = Mutex(0)
        let server = try await LoopbackServer.start(route: { Self.route($0, asked: asked) })
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pages = (0..<12).map { server.url("/n/\($0)").absoluteString }

        let store = try SQLiteCrawlStore(path: path)
        let (first, askedAtBreak) = try await withDeadline("three reports", within: .seconds(60)) {
            var urls: [String] = []
            for try await report in try Crawler(configuration: Self.configuration(server), store: store).reports() {
                urls.append(report.url)
                if urls.count == 3 { break }
            }
            return (urls, asked.withLock { $0 })
        }
        #expect(first == Array(pages.prefix(3)))
        // The crawl stops: after the break it asks for at most the page it was
        // loading and the one leased next, and stores at most the pages it had
        // asked for (their late windows were still open), then nothing more.
        func storedURLs() async throws -> [String] {
            var urls: [String] = []
            for try await report in store.storedReports() { urls.append(report.url) }
            return urls
        }
        // Still for three checks two seconds apart: a page the crawl was
        // loading when it broke off can be stored over two seconds later on
        // a machine busy with the suite's other views.
        var stored = try await storedURLs()
        var stillFor = 0
        for _ in 0..<30 where stillFor < 3 {
            try await Task.sleep(for: .seconds(2))
            let now = try await storedURLs()
            stillFor = now == stored ? stillFor + 1 : 0
            stored = now
        }
        let askedAfterBreak = asked.withLock { $0 } - askedAtBreak
        #expect(askedAfterBreak <= 2, "\(askedAfterBreak) pages asked for after the break")
        #expect(stored.count >= 3 && stored.count <= askedAtBreak + askedAfterBreak, "\(stored)")

        var resumed: [String] = []
        let summary = try await withDeadline("the resumed crawl", within: .seconds(60)) {
            try await Crawler(configuration: Self.configuration(server), store: store).run { report in
                _ = report
            }
        }
        for try await report in store.storedReports() { resumed.append(report.url) }
        #expect(resumed.sorted() == pages.sorted(), "every page once")
        #expect(summary.reported == 12 - stored.count)
    }
}
