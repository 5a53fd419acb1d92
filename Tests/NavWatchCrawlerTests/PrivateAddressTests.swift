import Foundation
import LoopbackServer
import NavWatchCrawler
import NavWatchTestSupport
import Testing

/// A public site on 127.0.0.1 whose page reaches for two service services:
/// one on 127.0.0.2, one named `localhost`, each counting its requests.
private struct GuardSite {
    let site: LoopbackServer
    let service: LoopbackServer
    let localhost: LoopbackServer

    static func start() async throws -> GuardSite {
        let service = try await LoopbackServer.start(host: "127.0.0.2") { _ in .html("<title>Internal</title>") }
        let localhost = try await LoopbackServer.start(host: "localhost") { _ in .html("<title>Localhost</title>") }
        let inside = service.baseURL.absoluteString, named = localhost.baseURL.absoluteString
        let site = try await LoopbackServer.start { request in
            switch request.uri {
            case "/":
                return .html("""
                    <title>Public</title>
                    <a href="\(inside)/secret">service link</a>
                    <a href="/redirect">a redirect inside</a>
                    <img src="\(named)/pixel.png">
                    <iframe src="\(named)/frame"></iframe>
                    <script>fetch("\(inside)/api").catch(() => {})</script>
                    """)
            case "/redirect": return .redirect(to: "\(inside)/admin")
            default: return .html("<title>Not found</title>", status: 404)
            }
        }
        return GuardSite(site: site, service: service, localhost: localhost)
    }

    /// `url outcome skip-reason blocked-subresources`, with the three bases as P, I and L.
    func rows(_ reports: [PageLoadReport]) -> [String] {
        reports.map { report in
            "\(report.url) \(report.outcome.rawValue) \(report.skipReason?.rawValue ?? "-") \(report.resources.blocked)"
                .replacingOccurrences(of: site.baseURL.absoluteString, with: "P")
                .replacingOccurrences(of: service.baseURL.absoluteString, with: "I")
                .replacingOccurrences(of: localhost.baseURL.absoluteString, with: "L")
        }.sorted()
    }

    /// The home page loaded with its three refused subresources, every page on
    /// a service blocked, and no request reached either service.
    func expectServicesBlocked(_ reports: [PageLoadReport], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rows(reports) == [
            "I/secret blocked private-address 0",
            "L/frame blocked private-address 0",
            "L/pixel.png blocked private-address 0",  // a resource of the page, checked as its links are
            "P/ ok - 3",
            "P/redirect blocked private-address 0",
        ], sourceLocation: sourceLocation)
        #expect(service.receivedRequests == [], sourceLocation: sourceLocation)
        #expect(localhost.receivedRequests == [], sourceLocation: sourceLocation)
    }

    func shutdown() async {
        for server in [site, service, localhost] { await server.shutdown() }
    }

    /// Crawls the site from its home page and returns the reports.
    func crawl(_ configure: (inout CrawlConfiguration) -> Void) async throws -> [PageLoadReport] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("guard-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        var configuration = CrawlConfiguration(seeds: [site.url("/")])
        configuration.backoff = .milliseconds(50)
        configure(&configuration)
        let store = try SQLiteCrawlStore(path: path)
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) {
            try await crawler.run { _ in }
        }
        let reports = try await store.allReports()
        await store.close()
        return reports
    }
}

@Suite("The private-address guard in crawls")
struct PrivateAddressTests {
    @Test("a link, a redirect, an image, a fetch and an iframe to service hosts are blocked; they see no request")
    func blocked() async throws {
        let site = try await GuardSite.start()
        defer { Task { await site.shutdown() } }
        let reports = try await site.crawl { $0.scope = .any }
        site.expectServicesBlocked(reports)
        let redirect = try #require(reports.first { $0.url.hasSuffix("/redirect") })
        #expect(redirect.finalURL == site.service.url("/admin").absoluteString)
        #expect(redirect.redirects.map(\.status) == [302])
        #expect(redirect.status == nil)
        #expect(redirect.error?.message == "127.0.0.2 is at 127.0.0.2 (loopback)")
    }

    @Test("links checked with plain HTTP go through the guard too")
    func checkedLinks() async throws {
        let site = try await GuardSite.start()
        defer { Task { await site.shutdown() } }
        let reports = try await site.crawl {
            $0.checkExternal = true
            $0.externalDelay = .zero
        }
        site.expectServicesBlocked(reports)
    }

    @Test("with allowPrivateAddresses every request goes through")
    func allowed() async throws {
        let site = try await GuardSite.start()
        defer { Task { await site.shutdown() } }
        let reports = try await site.crawl {
            $0.scope = .any
            $0.allowPrivateAddresses = true
        }
        #expect(site.rows(reports) == [
            "I/secret ok - 0",
            "L/frame ok - 0",
            "L/pixel.png ok - 0",
            "P/ ok - 0",
            "P/redirect ok - 0",
        ])
        #expect(Set(site.service.receivedRequests) == ["/robots.txt", "/secret", "/api", "/admin"])
        #expect(Set(site.localhost.receivedRequests) == ["/robots.txt", "/pixel.png", "/frame"])
    }
}
