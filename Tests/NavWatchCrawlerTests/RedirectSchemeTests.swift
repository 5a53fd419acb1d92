import Foundation
import LoopbackServer
@testable import NavWatchCrawler
import NavWatchTestSupport
import Testing

/// A page that redirects to a scheme navwatch does not fetch is `blocked`,
/// the same whether it was rendered or read from its HTML.
@Suite("Redirects to other schemes")
struct RedirectSchemeTests {
    @Test("a redirect to file: or data: is blocked (non-http, the target named), once, in every render mode",
          arguments: [RenderMode.always, .auto, .never])
    func blockedInEveryMode(mode: RenderMode) async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/": return .html(#"<!doctype html><title>Home</title><a href="/to-file">f</a><a href="/to-data">d</a>"#)
            case "/to-file": return .redirect(to: "file:///etc/passwd")
            case "/to-data": return .redirect(to: "data:text/html,<title>x</title>")
            default: return .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-scheme-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        (configuration.obeyRobots, configuration.render) = (false, mode)
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let reports = try await store.allReports().filter { $0.url != server.url("/").absoluteString }
        let base = server.baseURL.absoluteString
        #expect(reports.map { report in
            "\(report.url.replacingOccurrences(of: base, with: "")) \(report.outcome.rawValue) \(report.skipReason?.rawValue ?? "-") "
                + "\(report.attempts) \(report.redirects.map { "\($0.status)" }.joined()) \(report.error?.kind.rawValue ?? "-"): "
                + (report.error?.message ?? "-")
        }.sorted() == [
            "/to-data blocked non-http 1 302 policy: data:text/html,%3Ctitle%3Ex%3C/title%3E: only http and https URLs are fetched, not data",
            "/to-file blocked non-http 1 302 policy: file:///etc/passwd: only http and https URLs are fetched, not file",
        ])
    }
}
