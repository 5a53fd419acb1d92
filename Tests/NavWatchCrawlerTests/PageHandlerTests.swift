import Foundation
import LoopbackServer
import NavWatch
@testable import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// A page handler runs on each loaded page with the live view; what it
/// returns is the page's `data`, what goes wrong its `handler_error`.
@Suite("Page handlers")
struct PageHandlerTests {
    /// `/` links to `/a` and `/throw`, `/hang` and `/missing` (404); `/hidden`
    /// is linked from nowhere; robots.txt disallows `/private/`. Each page
    /// has an `h1` and a button that adds a `p` to the page when clicked.
    private static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        func page(_ heading: String, links: [String] = [], status: Int = 200) -> LoopbackResponse {
            .html("""
                <!doctype html><title>\(heading)</title><h1>\(heading)</h1>
                <button id="more" onclick="document.body.insertAdjacentHTML('beforeend', '<p>more</p>')">more</button>
                """ + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined(), status: status)
        }
        switch request.path {
        case "/robots.txt": return .text("User-agent: *\nDisallow: /private/\n")
        case "/": return page("Home", links: ["/a", "/throw", "/hang", "/missing"])
        case "/a", "/throw", "/hang", "/hidden", "/private/x": return page(String(request.path.dropFirst()))
        default: return page("Missing", status: 404)
        }
    }

    private struct Found: Codable, Sendable, Equatable {
        var heading: String
        var paragraphs: Int
        var status: Int?
    }

    private struct Refusal: Error, CustomStringConvertible {
        var description: String { "this page is refused" }
    }

    @Test("the handler's value is each page's data; it clicks, enqueues with the crawl's rules, and its failures are handler_error")
    func dataPerPage() async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("handler-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        configuration.allowPrivateAddresses = true
        // Long enough for a click and two evaluations on a machine busy building, short for a test.
        configuration.pageHandlerTimeout = .seconds(8)
        let base = server.baseURL.absoluteString
        configuration.pageHandler = { page in
            let url = URL(string: page.report.url)!
            switch url.path {
            case "/":
                page.enqueue([URL(string: base + "/hidden")!, URL(string: base + "/private/x")!,
                              URL(string: "http://elsewhere.invalid/page")!, URL(string: base + "/a")!])
            case "/throw": throw Refusal()
            case "/hang":
                // A promise the page keeps: one nothing references is collected, and WebKit then ends the call.
                _ = try await page.view.callAsyncJavaScript("window.held = new Promise(() => {}); await window.held")
            default: break
            }
            try await page.view.click("#more")
            let heading = try await page.view.evaluateJavaScript("document.querySelector('h1').textContent", as: String.self)
            let paragraphs = try await page.view.evaluateJavaScript("document.querySelectorAll('p').length", as: Int.self)
            return Found(heading: heading, paragraphs: paragraphs, status: page.report.status)
        }
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(60)) { try await crawler.run { _ in } }
        let reports = try await store.allReports()
        await store.close()

        func data(_ path: String) throws -> Found? {
            let report = try #require(reports.first { $0.url == base + path }, "no report of \(path)")
            guard let data = report.data else {
                Issue.record("\(path) has no data: \(report.handlerError ?? "no handler error")")
                return nil
            }
            return try JSONDecoder().decode(Found.self, from: PageLoadReport.encoder.encode(data))
        }
        #expect(try data("/") == Found(heading: "Home", paragraphs: 1, status: 200))
        #expect(try data("/a") == Found(heading: "a", paragraphs: 1, status: 200))
        #expect(try data("/hidden") == Found(heading: "hidden", paragraphs: 1, status: 200))
        #expect(try data("/missing") == Found(heading: "Missing", paragraphs: 1, status: 404))
        let byURL = Dictionary(uniqueKeysWithValues: reports.map { ($0.url, $0) })
        #expect(byURL[base + "/throw"]?.data == nil && byURL[base + "/throw"]?.handlerError == "this page is refused")
        #expect(byURL[base + "/hang"]?.data == nil
                && byURL[base + "/hang"]?.handlerError == "the handler did not return within 8000 ms",
                "\(byURL[base + "/hang"]?.handlerError ?? "none")")
        // Enqueued URLs follow the crawl's rules: robots.txt, the scope, one report per URL.
        #expect(byURL[base + "/private/x"]?.outcome == .skipped && byURL[base + "/private/x"]?.skipReason == .robots)
        #expect(byURL["http://elsewhere.invalid/page"]?.outcome == .skipped
                && byURL["http://elsewhere.invalid/page"]?.skipReason == .scope)
        #expect(reports.map(\.url).sorted() == ["/", "/a", "/hang", "/hidden", "/missing", "/private/x", "/throw"]
            .map { base + $0 }.sorted() + ["http://elsewhere.invalid/page"])
        #expect(reports.filter { $0.handlerError != nil }.map(\.url).sorted() == [base + "/hang", base + "/throw"])
        // The data is in the stored JSON line, and in nothing that was not loaded.
        #expect(byURL[base + "/a"]?.jsonLine.contains(#""data":{"heading":"a","paragraphs":1,"status":200}"#) == true)
        #expect(reports.filter { $0.data != nil }.count == 4)
    }
}
