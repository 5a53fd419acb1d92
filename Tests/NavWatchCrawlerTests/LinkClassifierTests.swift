import Foundation
@testable import NavWatchCrawler
import NavWatch
import NavWatchHTML
import Testing

@Suite("LinkClassifier and RetryPolicy")
struct LinkClassifierTests {
    private static func links(_ rows: [[String]]) throws -> [PageFacts.Link] {
        try JSONDecoder().decode([PageFacts.Link].self, from: JSONSerialization.data(withJSONObject: rows))
    }

    private static func classifier(_ configure: (inout CrawlConfiguration) -> Void = { _ in }) throws -> LinkClassifier {
        var configuration = CrawlConfiguration(seeds: [URL(string: "http://site.test/")!])
        configure(&configuration)
        return try LinkClassifier(configuration, seeds: configuration.seeds)
    }

    static let page = FrontierEntry(url: "http://site.test/a", depth: 1, parent: "http://site.test/")
    static let found = [
        ["http://site.test/b", "b", "B", "", "a"],
        ["http://SITE.test:80/b#part", "/b#part", "B again", "", "a"],
        ["http://site.test/a", "a", "myself", "", "a"],
        ["mailto:x@site.test", "mailto:x@site.test", "mail", "", "a"],
        ["ftp://site.test/f", "ftp://site.test/f", "file", "", "a"],
        ["http://other.test/x", "http://other.test/x", "away", "nofollow", "a"],
        ["http://site.test/private/p", "/private/p", "private", "", "iframe"],
    ]

    @Test("routes a click reached: a hash route of the page keeps its hash as written, however it was reached; a text fragment its escapes")
    func routesAndTextFragments() throws {
        let classifier = try Self.classifier()
        var links = try Self.links([
            ["http://site.test/a#/users/1", "#/users/1", "Users", "", "button"],
            ["http://site.test/a#/s?q=a%26b", "#/s?q=a%26b", "Search", "", "li"],
            ["http://site.test/b#/other", "/b#/other", "Other", "", "button"],
            ["http://site.test/a#/plain", "#/plain", "Plain link", "", "a"],
            ["http://site.test/b#:~:text=a%2Cb", "/b#:~:text=a%2Cb", "Quote", "", "a"],
        ])
        (links[0].reached, links[1].reached, links[2].reached) = (.push, .fragment, .push)
        let result = classifier.classify(links, from: Self.page, shownAt: "http://site.test/a")
        #expect(result.graph.map { "\($0.target) \($0.fragment ?? "-") \($0.reached?.rawValue ?? "-")" } == [
            "http://site.test/a#/users/1 - push", "http://site.test/a#/s?q=a%26b - fragment",
            "http://site.test/b /other push", "http://site.test/a /plain -", "http://site.test/b :~:text=a%2Cb -",
        ])
        #expect(result.discovered.map(\.url) == ["http://site.test/a#/users/1", "http://site.test/a#/s?q=a%26b", "http://site.test/b"])
    }

    @Test("fragments: escapes decoded, an empty one none, the same link twice over a remembered key")
    func fragments() throws {
        let classifier = try Self.classifier()
        let rows = [["http://site.test/b#caf%C3%A9", "/b#caf%C3%A9", "B", "", "a"],
                    ["http://site.test/b#", "/b#", "B", "", "a"], ["http://site.test/b#x%y", "/b#x%y", "B", "", "a"]]
        for _ in 1...2 {  // the second time from the classifier's memory of each link
            let result = classifier.classify(try Self.links(rows), from: Self.page, shownAt: "http://site.test/a")
            #expect(result.graph.map { $0.fragment ?? "-" } == ["café", "-", "-"])
            #expect(result.discovered.map(\.url) == ["http://site.test/b"])
        }
    }

    @Test("a page's links: followed, skipped by reason, checked outside; every document link in the graph once")
    func classify() throws {
        let result = try Self.classifier { $0.exclude = ["/private/"] }
            .classify(try Self.links(Self.found), from: Self.page, shownAt: "http://site.test/a")
        #expect(result.discovered.map { "\($0.url) \($0.depth) \($0.kind.rawValue)" } == ["http://site.test/b 2 page"])
        #expect(result.skipped.map { "\($0.url) \($0.skipReason?.rawValue ?? "-")" } == [
            "ftp://site.test/f non-http", "http://other.test/x scope", "http://site.test/private/p scope",
        ])
        #expect(result.graph.map { "\($0.target) \($0.fragment ?? "-") \($0.text) \($0.element)" } == [
            "http://site.test/b - B a", "http://site.test/b part B again a", "http://site.test/a - myself a",
            "ftp://site.test/f - file a", "http://other.test/x - away a", "http://site.test/private/p - private iframe",
        ])
    }

    @Test("with checkExternal a link outside is checked; beyond maxDepth nothing is followed or checked")
    func externalAndDepth() throws {
        let links = try Self.links(Array(Self.found[0...0] + Self.found[5...5]))
        let external = try Self.classifier { $0.checkExternal = true }.classify(links, from: Self.page, shownAt: Self.page.url)
        #expect(external.discovered.map { "\($0.url) \($0.kind.rawValue)" } == ["http://site.test/b page", "http://other.test/x external"])
        let shallow = try Self.classifier { $0.checkExternal = true; $0.maxDepth = 1 }
            .classify(links, from: Self.page, shownAt: Self.page.url)
        #expect(shallow.discovered.isEmpty)
        #expect(shallow.skipped.map { "\($0.url) \($0.skipReason?.rawValue ?? "-")" } == [
            "http://site.test/b max-depth", "http://other.test/x scope",
        ])
    }

    @Test("resources: checked however deep, inside the scope as resources, outside as resources there; skipped as resources")
    func resources() throws {
        let embedded = [
            EmbeddedResource(url: "http://site.test/logo.png", value: "/logo.png", element: "img", attribute: "src"),
            EmbeddedResource(url: "http://cdn.test/app.js", value: "http://cdn.test/app.js", element: "script", attribute: "src"),
            EmbeddedResource(url: "ftp://site.test/s.css", value: "ftp://site.test/s.css", element: "link", attribute: "href"),
            EmbeddedResource(url: "http://site.test/a", value: "", element: "img", attribute: "src"),
        ]
        let links = try Self.links([["http://site.test/b", "b", "B", "", "a"]])
        func sorted(_ configure: (inout CrawlConfiguration) -> Void) throws -> [String] {
            let result = try Self.classifier(configure).classify(links, embedded: embedded, from: Self.page, shownAt: Self.page.url)
            return result.discovered.map { "\($0.url) \($0.depth) \($0.kind.rawValue)" }
                + result.skipped.map { "\($0.url) \($0.skipReason?.rawValue ?? "-") \($0.resource ?? false) \($0.external ?? false)" }
        }
        let checked = try sorted { $0.checkExternal = true; $0.maxDepth = 1 }
        #expect(checked == [
            "http://site.test/logo.png 2 resource", "http://cdn.test/app.js 2 external-resource",
            "http://site.test/b max-depth false false", "ftp://site.test/s.css non-http true true",
        ])
        let unchecked = try sorted { _ in }
        #expect(unchecked == [
            "http://site.test/b 2 page", "http://site.test/logo.png 2 resource",
            "http://cdn.test/app.js scope true true", "ftp://site.test/s.css non-http true true",
        ])
        // Kinds of entries: which are checked, paced as outside the scope, embedded.
        #expect(FrontierEntry.Kind.allCases.map { "\($0.rawValue) \($0.isCheck) \($0.isOutside) \($0.isResource)" } == [
            "page false false false", "sitemap-page false false false", "external true true false",
            "resource true false true", "external-resource true true true",
        ])
    }

    @Test("transient failures are retried while attempts remain; others never")
    func retryPolicy() {
        let policy = RetryPolicy(retries: 2, backoff: .milliseconds(500))
        func report(_ outcome: PageLoadReport.Outcome, status: Int? = nil, kind: NavigationError.Kind? = nil,
                    attempts: Int = 1) -> PageLoadReport {
            var report = PageLoadReport(url: "http://site.test/", depth: 0, parent: nil, outcome: outcome)
            report.status = status
            report.attempts = attempts
            report.error = kind.map { .init(NavigationError(kind: $0, domain: "test", code: 0, message: "", failingURL: nil)) }
            return report
        }
        #expect(policy.retries(report(.timeout)) && policy.retries(report(.crashed)))
        #expect(policy.retries(report(.failed, kind: .connectionReset)) && policy.retries(report(.failed, kind: .cancelled)))
        #expect(policy.retries(report(.httpError, status: 503)) && policy.retries(report(.httpError, status: 429)))
        #expect(!policy.retries(report(.httpError, status: 404)) && !policy.retries(report(.failed, kind: .dns)))
        #expect(!policy.retries(report(.ok)) && !policy.retries(report(.timeout, attempts: 3)))
        #expect(policy.delay(attempt: 1, retryAfter: 7) == 7)
        #expect((0.5..<0.75).contains(policy.delay(attempt: 1, retryAfter: nil)))
        #expect((1.0..<1.5).contains(policy.delay(attempt: 2, retryAfter: nil)))
        #expect(policy.delay(attempt: 1, retryAfter: 3600) == 300)
    }
}
