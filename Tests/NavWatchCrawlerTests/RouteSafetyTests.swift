import Foundation
import LoopbackServer
import NavWatch
@testable import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// The route explorer's clicks change no server: only GET and HEAD leave
/// its view, every dialog is dismissed, and going back allows no navigation
/// but the history step.
@Suite("Route exploration sends only GET and HEAD")
struct RouteSafetyTests {
    /// A page whose clickable elements each try to change the server, in
    /// its own way: `fetch`, XHR, a beacon, a ping, a form sent on
    /// `popstate` and a `fetch` on `hashchange`, and two behind dialogs.
    static let page = """
        <!doctype html><title>Dangerous</title>
        <form id="sent-on-popstate" method="post" action="/api/popstate-form"><input name="all" value="1"></form>
        <button onclick="fetch('/api/fetch-post', {method: 'POST', body: 'x'})">Delete by fetch</button>
        <button onclick="const x = new XMLHttpRequest(); x.open('DELETE', '/api/xhr-delete'); x.send()">Delete by XHR</button>
        <button onclick="const x = new XMLHttpRequest(); x.open('PUT', '/api/xhr-put'); x.send('x')">Replace by XHR</button>
        <button onclick="fetch('/api/custom-method', {method: 'PURGE'})">Purge</button>
        <button onclick="navigator.sendBeacon('/api/beacon', 'x')">Beacon</button>
        <button onclick="if (confirm('Really delete all the data?')) fetch('/api/confirmed')">Delete all</button>
        <button onclick="fetch('/api/prompted?value=' + prompt('Your name?', 'default'))">Name</button>
        <a href="#/pinged" ping="/api/ping">Pinged route</a>
        <button onclick="history.pushState({}, '', '/dangerous/pushed'); document.title = 'Pushed'">Push a route</button>
        <a href="#/hashed">Hashed route</a>
        <script>
          window.addEventListener('popstate', () => document.getElementById('sent-on-popstate').submit());
          window.addEventListener('hashchange', () => {
            if (location.hash === '') fetch('/api/hashchange', {method: 'POST', body: 'x'});
          });
        </script>
        """

    @Test("every request the server sees during a crawl with routes is GET or HEAD; the refused ones are in the page's report")
    func onlyReads() async throws {
        let log = Mutex<[String]>([])
        let server = try await LoopbackServer.start { request in
            log.withLock { $0.append("\(request.method) \(request.uri)") }
            switch request.path {
            case "/dangerous": return .html(Self.page)
            case "/api/confirmed", "/api/prompted": return .text("read")
            default: return .html("<!doctype html><title>Other</title>")
            }
        }
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("route-safety-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/dangerous")])
        configuration.routeClicks = CrawlConfiguration.defaultRouteClicks
        configuration.maxPages = 1
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let requests = log.withLock { $0 }
        #expect(requests.filter { !$0.hasPrefix("GET ") && !$0.hasPrefix("HEAD ") } == [])
        // The dialogs were dismissed: no GET behind confirm(), and prompt() gave null.
        #expect(!requests.contains("GET /api/confirmed"))
        #expect(requests.filter { $0.hasPrefix("GET /api/prompted") } == ["GET /api/prompted?value=null"])
        let report = try #require(try await store.allReports().first { $0.url == server.url("/dangerous").absoluteString })
        let base = server.baseURL.absoluteString
        #expect(report.refusedRequests == [
            "POST \(base)/api/fetch-post", "DELETE \(base)/api/xhr-delete", "PUT \(base)/api/xhr-put",
            "PURGE \(base)/api/custom-method", "POST \(base)/api/beacon", "POST \(base)/api/ping",
            // Going back from each hash route empties the hash: the page posts on `hashchange`.
            "POST \(base)/api/hashchange", "POST \(base)/api/hashchange",
        ])
    }

    @Test("a page whose every click adds 10,000 buttons is explored within the page's timeout")
    func boundedInTime() async throws {
        // Each click adds 10,000 buttons, which would each be clicked in turn, and waits 300 ms.
        let page = """
            <!doctype html><title>Growing</title>
            <script>
              function grow() {
                const start = Date.now(); while (Date.now() - start < 300) {}
                const box = document.createElement('div');
                for (let i = 0; i < 10000; i++) {
                  const b = document.createElement('button');
                  b.textContent = 'more ' + document.querySelectorAll('button').length + ' ' + i;
                  b.onclick = grow;
                  box.append(b);
                }
                document.body.append(box);
              }
            </script>
            """ + (0..<50).map { "<button onclick=\"grow()\">grow \($0)</button>" }.joined()
        let server = try await LoopbackServer.start { _ in .html(page) }
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("route-growth-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        configuration.routeClicks = 1000
        configuration.maxPages = 1
        configuration.timeout = .seconds(4)
        let crawler = try Crawler(configuration: configuration, store: store)
        let started = ContinuousClock.now
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let took = ContinuousClock.now - started
        // The page's load, its late window and the exploration's 4 s, with room for a busy machine.
        #expect(took < .seconds(15), "the crawl took \(took)")
        #expect(try await store.allReports().map(\.outcome) == [.ok])
    }
}
