import Foundation
import LoopbackServer
import NavWatch
import NavWatchTestSupport
@testable import NavWatchCrawler
import Synchronization
import Testing
import WebKitThread

/// Every report of a crawl, with the default settle time, of the loopback
/// site `route` serves, from its page at `path`.
private func crawlSite(route: @escaping LoopbackServer.Route, from path: String,
                       concurrency: Int) async throws -> [PageLoadReport] {
    let server = try await LoopbackServer.start(route: route)
    defer { Task { await server.shutdown() } }
    let database = FileManager.default.temporaryDirectory.appendingPathComponent("late-\(UUID().uuidString).db").path
    defer { removeSQLiteDatabase(atPath: database) }
    let store = try SQLiteCrawlStore(path: database)
    var configuration = CrawlConfiguration(seeds: [server.url(path)])
    (configuration.concurrency, configuration.obeyRobots, configuration.allowPrivateAddresses) = (concurrency, false, true)
    let crawler = try Crawler(configuration: configuration, store: store)
    let reports = Mutex<[PageLoadReport]>([])
    _ = try await withDeadline("the crawl to end", within: .seconds(60)) {
        try await crawler.run { report in reports.withLock { $0.append(report) } }
    }
    await store.close()
    return reports.withLock { $0 }
}

/// What a page does after its load event stays in its own report, until the
/// page is quiet for the settle time (or, once every view of its loader
/// holds a page, the view's next page commits).
@Suite("Late events: errors after the load event", .serialized)
struct LateWindowTests {
    /// `/late/X` rejects a promise while loading, and throws 20 ms after its
    /// load event (with a console error) and 100 ms after it; it links to
    /// `/next/X`. `/next/X` throws at once, and 20 ms after its load event
    /// logs an error and makes a request to `refused` (which fails). Every
    /// page answers after a second.
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
            // The next page loads in another view: the window lasts its four seconds of quiet.
            #expect(window.closedBy == .quiet && window.windowMs >= 4000, "\(window)")

            let next = try #require(reports.first { $0.url.hasSuffix("/next/\(name)") })
            #expect(next.pageErrors?.map(\.message) == ["Error: next page error \(name)"])
            let nextWindow = try #require(next.late)
            // Its late request was made, and failed.
            #expect(nextWindow.closedBy == .quiet && nextWindow.windowMs >= 4000 && nextWindow.failedRequests == 1
                    && nextWindow.consoleErrors == 2, "\(nextWindow)")
            #expect(next.requests.map(\.url) == [next.url, refused + name], "\(next.requests.map(\.url))")
            #expect(next.requests.last?.error != nil && next.resources.count == 2 && next.resources.failed == 1)
            #expect(next.consoleMessages?.first?.text == "fetching \(name)")
        }
    }

    /// `/fast/N` (N < 12) links to the next, except `/fast/5`, which links to
    /// `/timers` and `/fast/6`; `/timers` throws 20, 200 and 350 ms after its
    /// load event, each on a line of its own, and links to nothing. The
    /// window closes 500 ms after the page's last request event: the last
    /// error comes 150 ms before it, room for a busy machine's timers (at
    /// 450 ms, CI once saw it come after the close).
    private static func fastRoute(_ request: LoopbackRequest) -> LoopbackResponse {
        if request.path == "/timers" {
            return .html("""
                <!doctype html><title>Timers</title><script>
                addEventListener('load', () => setTimeout(() => { throw new Error('at 20 ms'); }, 20));
                addEventListener('load', () => setTimeout(() => { throw new Error('at 200 ms'); }, 200));
                addEventListener('load', () => setTimeout(() => { throw new Error('at 350 ms'); }, 350));
                </script>
                """)
        }
        guard request.path.hasPrefix("/fast/"), let n = Int(request.path.dropFirst(6)), n < 12 else {
            return .text("no", status: 404)
        }
        let links = (n == 5 ? "<a href=/timers>t</a>" : "") + (n < 11 ? "<a href=/fast/\(n + 1)>next</a>" : "")
        return .html("<!doctype html><title>Fast \(n)</title><p>fast page \(n)</p>\(links)")
    }

    @Test("errors 20, 200 and 350 ms after the load are in their page's report among fast pages", arguments: [1, 2])
    func lateErrorsAmongFastPages(concurrency: Int) async throws {
        let all = try await crawlSite(route: Self.fastRoute, from: "/fast/0", concurrency: concurrency)
        #expect(all.count == 13 && all.allSatisfy { $0.outcome == .ok }, "\(all.map(\.url))")
        let timers = try #require(all.first { $0.url.hasSuffix("/timers") })
        let finish = try #require(timers.timings.finish)
        let errors = try #require(timers.pageErrors)
        #expect(errors.map(\.message) == ["Error: at 20 ms", "Error: at 200 ms", "Error: at 350 ms"], "\(timers.jsonLine)")
        #expect(errors.map(\.line) == [2, 3, 4])
        for (error, after) in zip(errors, [20.0, 200, 350]) {
            let time = try #require(error.time)
            #expect(time >= finish + after - 20, "\(error.message) at \(time), finish \(finish)")
        }
        let window = try #require(timers.late)
        #expect(window.closedBy == .quiet && window.pageErrors == 3 && window.windowMs >= 500, "\(window)")
        for report in all where !report.url.hasSuffix("/timers") {
            #expect(report.pageErrorCount == 0 && (report.pageErrors ?? []).isEmpty, "\(report.url): \(report.pageErrors ?? [])")
            #expect(report.late?.closedBy == .quiet, "\(report.url): \(String(describing: report.late))")
        }
    }

    @Test("a loader whose views all hold open windows loads the next page over the oldest (next-page)")
    func nextPageAtTheViewLimit() async throws {
        let server = try await LoopbackServer.start(route: Self.fastRoute)
        defer { Task { await server.shutdown() } }
        let closedBy = try await withDeadline("three loads and their windows", within: .seconds(60)) {
            try await Task { @WebKitActor in
                let loader = PageLoader(configuration: WebViewConfiguration(), recycleAfter: 1000, settle: .seconds(2), views: 2)
                defer { loader.close() }
                var results: [PageResult] = []
                for n in 0..<3 {
                    let entry = FrontierEntry(url: server.url("/fast/\(n)").absoluteString, depth: 0, parent: nil)
                    results.append(try await loader.load(entry, timeout: .seconds(30)))
                }
                var closedBy: [String?] = []
                for result in results { closedBy.append(await result.completed().report.late?.closedBy.rawValue) }
                return closedBy
            }.value
        }
        #expect(closedBy == ["next-page", "quiet", "quiet"])
    }
}

/// First contentful paint on pages that paint at once, after a timer, or never.
@Suite("First contentful paint after the finish", .serialized)
struct FirstPaintTests {
    private static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/now":
            return .html("<!doctype html><title>Now</title><p>Text at once.</p><a href=/later>l</a><a href=/never>n</a>")
        case "/later":
            return .html("""
                <!doctype html><title>Later</title><body><script>
                setTimeout(() => { document.body.append('Text after 300 ms.'); }, 300);
                </script>
                """)
        case "/never":
            return .html("<!doctype html><title>Never</title><body><script>let quiet = 1;</script>")
        default:
            return .text("no", status: 404)
        }
    }

    @Test("FCP on a page that paints at once, after the timer on one that paints later, and a reason on one that never does",
          arguments: [1, 2])
    func paints(concurrency: Int) async throws {
        let reports = try await crawlSite(route: Self.route, from: "/now", concurrency: concurrency)
        let byPath = Dictionary(uniqueKeysWithValues: reports.map { (URL(string: $0.url)!.path, $0) })
        #expect(byPath.keys.sorted() == ["/later", "/never", "/now"])
        let now = try #require(byPath["/now"]?.timings)
        #expect(now.firstContentfulPaint != nil && now.firstContentfulPaintUnavailable == nil, "\(now)")
        let later = try #require(byPath["/later"]?.timings)
        let paint = try #require(later.firstContentfulPaint, "\(later)")
        #expect(paint >= 300 && later.firstContentfulPaintUnavailable == nil, "\(later)")
        let never = try #require(byPath["/never"]?.timings)
        #expect(never.firstContentfulPaint == nil)
        #expect(never.firstContentfulPaintUnavailable == .noPaintInWindow)
    }
}
