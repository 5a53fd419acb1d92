import Foundation
import LoopbackServer
import NavWatchTestSupport
@testable import NavWatchCrawler
import Synchronization
import Testing

/// What a page does after its load event stays in its own report, until the
/// view's next page commits or the page is quiet for the settle time.
@Suite("Late events: errors after the load event", .serialized)
struct LateWindowTests {
    /// `/late/X` rejects a promise while loading, and throws 20 ms after its
    /// load event (with a console error) and 100 ms after it; it links to
    /// `/next/X`. `/next/X` throws at once, and 20 ms after its load event
    /// logs an error and makes a request to `refused` (which fails). Every
    /// page answers after a second, so the page a view loads next commits
    /// after a page's timers have fired, even on a busy machine: they arrive
    /// while it is still shown.
    private static func route(_ request: LoopbackRequest, refused: String) -> LoopbackResponse {
        let parts = request.path.split(separator: "/")
        guard parts.count == 2 else { return .text("no", status: 404) }
        let name = parts[1]
        switch parts[0] {
        case "late":
            return .delayed(.seconds(1), .html("""
                <!doctype html><title>Late \(name)</title><a href="/next/\(name)">next</a><script>
                Promise.reject(new Error('nobody caught me \(name)'));
                addEventListener('load', () => setTimeout(() => { console.error('late log \(name)'); throw new TypeError('late failure \(name)'); }, 20));
                addEventListener('load', () => setTimeout(() => { throw new Error('while leaving \(name)'); }, 100));
                </script>
                """))
        case "next":
            return .delayed(.seconds(1), .html("""
                <!doctype html><title>Next \(name)</title><script>
                setTimeout(() => { throw new Error('next page error \(name)'); }, 0);
                addEventListener('load', () => setTimeout(() => { console.error('fetching \(name)'); fetch('\(refused)\(name)', {mode: 'no-cors'}).catch(() => {}); }, 20));
                </script>
                """))
        default:
            return .text("no", status: 404)
        }
    }

    private static func crawl(_ names: [String], concurrency: Int, settle: Duration) async throws -> (reports: [PageLoadReport], refused: String) {
        let refusing = try RefusingPort()
        let server = try await LoopbackServer.start(route: { Self.route($0, refused: refusing.url) })
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("late-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: names.map { server.url("/late/\($0)") })
        (configuration.concurrency, configuration.settle, configuration.obeyRobots) = (concurrency, settle, false)
        configuration.allowPrivateAddresses = true  // the refused request fails in WebKit, not as the guard's 502
        let crawler = try Crawler(configuration: configuration, store: store)
        let reports = Mutex<[PageLoadReport]>([])
        _ = try await withDeadline("the crawl to end", within: .seconds(60)) {
            try await crawler.run { report in reports.withLock { $0.append(report) } }
        }
        await store.close()
        return (reports.withLock { $0 }.sorted { $0.url < $1.url }, refusing.url)
    }

    @Test("each page keeps its own late errors, with one view and with several", arguments: [1, 2])
    func lateErrors(concurrency: Int) async throws {
        let names = concurrency == 1 ? ["a"] : ["a", "b"]
        let (reports, refused) = try await Self.crawl(names, concurrency: concurrency, settle: .seconds(4))
        #expect(reports.map { URL(string: $0.url)!.path } == names.map { "/late/\($0)" } + names.map { "/next/\($0)" })
        for name in names {
            let late = try #require(reports.first { $0.url.hasSuffix("/late/\(name)") })
            let finish = try #require(late.timings.finish)
            let errors = try #require(late.pageErrors)
            #expect(errors.map(\.message) == ["Error: nobody caught me \(name)", "TypeError: late failure \(name)",
                                              "Error: while leaving \(name)"])
            #expect(errors.map(\.line) == [2, 3, 4])
            #expect(late.pageErrorCount == 3)
            try #require(errors.count == 3, "\(late.jsonLine)")
            let times = errors.map { $0.time ?? -1 }
            let window = try #require(late.late)
            // Times are when the errors reached navwatch (a busy machine delivers them late, and together).
            #expect(times[1] > finish && times[1] <= times[2] && times[2] <= finish + window.windowMs,
                    "after the load, in order, within the window: \(times), finish \(finish), \(window)")
            #expect(late.console == .init(errors: 1, warnings: 0))
            #expect(late.consoleMessages?.map(\.text) == ["late log \(name)"])
            #expect(late.consoleMessages?.first?.time.map { $0 > finish } == true)
            #expect(window.pageErrors >= 2 && window.consoleErrors == 1 && window.failedRequests == 0, "\(window)")
            // With one view, its next page commits a second after it was asked
            // for, long before four seconds of quiet; with two, which view
            // loads what is not fixed, and a page may be a view's last.
            #expect(concurrency == 1 ? window.closedBy == "next-page" : ["next-page", "quiet"].contains(window.closedBy),
                    "\(window)")
            #expect(window.windowMs >= (window.closedBy == "quiet" ? 4000 : 900), "\(window)")

            let next = try #require(reports.first { $0.url.hasSuffix("/next/\(name)") })
            #expect(next.pageErrors?.map(\.message) == ["Error: next page error \(name)"])
            let nextWindow = try #require(next.late)
            #expect(concurrency == 1 ? nextWindow.closedBy == "quiet" : ["next-page", "quiet"].contains(nextWindow.closedBy))
            if nextWindow.closedBy == "quiet" {
                // Nothing followed on its view: its late request was made, and failed.
                #expect(nextWindow.windowMs >= 4000 && nextWindow.failedRequests == 1 && nextWindow.consoleErrors == 2,
                        "\(nextWindow)")
                #expect(next.requests.map(\.url) == [next.url, refused + name], "\(next.requests.map(\.url))")
                #expect(next.requests.last?.error != nil && next.resources.count == 2 && next.resources.failed == 1)
                #expect(next.consoleMessages?.first?.text == "fetching \(name)")
            } else {
                // Its late request was made only if the view was not asked for
                // another page first (WebKit makes none for the page it leaves).
                #expect(next.resources.count == 1 + nextWindow.failedRequests && next.resources.failed == nextWindow.failedRequests,
                        "\(nextWindow)")
            }
        }
    }
}
