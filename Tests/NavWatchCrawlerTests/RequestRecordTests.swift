import Foundation
@testable import NavWatch
@testable import NavWatchCrawler
import Testing

/// Joining a page's request events with its Resource Timing.
@Suite("RequestRecord")
struct RequestRecordTests {
    private static func url(_ path: String) -> URL { URL(string: "http://h\(path)")! }
    private static let navigation = Navigation(id: 1, url: url("/"), origin: .load)
    private static func dest(_ value: String) -> [HTTPHeader] { [HTTPHeader(name: "Sec-Fetch-Dest", value: value)] }

    /// A page: its document (committed 200), a stylesheet, an image behind a
    /// redirect, a script that failed, and a fetch still pending.
    private static func page() -> PageLoadState {
        var state = PageLoadState(navigation: navigation)
        let n = navigation
        let events: [(WebViewEvent, Int)] = [
            (.navigation(.didStartProvisionalNavigation(n)), 0),
            (.resource(.started(id: 1, url: url("/"), method: "GET", isMainResource: true, headers: dest("document"))), 1),
            (.navigation(.didCommit(n, NavigationResponse(url: url("/"), statusCode: 200, mimeType: "text/html",
                headers: [HTTPHeader(name: "Content-Type", value: "text/html")], expectedContentLength: nil,
                suggestedFilename: nil, canShowMIMEType: true))), 5),
            (.resource(.started(id: 2, url: url("/s.css"), method: "GET", isMainResource: false, headers: dest("style"))), 6),
            (.resource(.started(id: 3, url: url("/old.png"), method: "GET", isMainResource: false, headers: dest("image"))), 7),
            (.resource(.redirected(id: 3, to: url("/new.png"), status: 301,
                                   headers: [HTTPHeader(name: "Location", value: "/new.png")])), 8),
            (.resource(.started(id: 4, url: url("/a.js"), method: "GET", isMainResource: false, headers: dest("script"))), 9),
            (.resource(.failed(id: 4, url: url("/a.js"), error: .navwatch(.connectionRefused, .timeout, "refused", url: url("/a.js")))), 12),
            (.resource(.started(id: 5, url: url("/api"), method: "POST", isMainResource: false, headers: dest("empty"))), 13),
            (.resource(.finished(id: 2, url: url("/s.css"), status: 200, mimeType: "text/css", headers: [])), 14),
            (.resource(.finished(id: 3, url: url("/new.png"), status: 200, mimeType: "image/png", headers: [])), 20),
            (.navigation(.didFinish(n)), 30),
        ]
        for (event, ms) in events { state.apply(event, at: .milliseconds(ms)) }
        return state
    }

    /// Resource Timing as the facts script returns it.
    private static func facts(_ resources: String) throws -> PageFacts {
        let json = """
            {"links": [], "anchors": [], "navigation": ["http://h/", "navigation", 0, 1, 1, 1, 1, 1, 0, 2, 4, 6, 600, 300, 300],
             "resources": [\(resources)]}
            """
        return try JSONDecoder().decode(PageFacts.self, from: Data(json.utf8))
    }

    @Test("records in start order: redirect hops as their own records, failures and pending ones timed by events")
    func records() throws {
        let facts = try Self.facts("""
            ["http://h/s.css", "link", 6, 6.5, 7, 8, 8, 10, 0, 10, 12, 13, 330, 30, 60],
            ["http://h/old.png", "img", 7, 7, 0, 0, 0, 0, 0, 0, 0, 19, 0, 0, 0]
            """)
        let records = RequestRecord.records(of: Self.page(), facts: facts, now: .milliseconds(40))
        #expect(records.map { "\($0.method) \($0.url) \($0.type.rawValue) \($0.status.map(String.init) ?? "-")" } == [
            "GET http://h/ document 200", "GET http://h/s.css stylesheet 200", "GET http://h/old.png image 301",
            "GET http://h/new.png image 200", "GET http://h/a.js script -", "POST http://h/api fetch -",
        ])
        let document = records[0]
        #expect(document.statusText == "OK" && document.responseHeaders.first?.value == "text/html")
        #expect(document.transferBytes == 600 && document.bodyBytes == 300 && document.startMs == 0)
        #expect(document.timings == .init(blocked: 2, dns: 0, connect: 0, ssl: -1, send: 0, wait: 2, receive: 2))
        #expect(document.timeMs == 6)  // its responseEnd: the phases add up to the whole
        let css = records[1]
        #expect(css.startMs == 6 && css.timings == .init(blocked: 1, dns: 1, connect: 2, ssl: -1, send: 0, wait: 2, receive: 1))
        #expect(css.timeMs == 7 && css.transferBytes == 330 && css.encodedBytes == 30 && css.bodyBytes == 60)
        let hop = records[2]
        #expect(hop.redirectURL == "http://h/new.png" && hop.statusText == "Moved Permanently")
        #expect(hop.responseHeaders == [HTTPHeader(name: "Location", value: "/new.png")])
        // The redirect spans from the request to its answer (event times); the final fetch starts at fetchStart.
        #expect(hop.startMs == 7 && hop.timeMs == 1 && records[3].startMs == 7)
        // Cross-origin style: only the start and end are known, so it is all wait.
        #expect(records[3].timings == .init(blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 12, receive: 0))
        #expect(records[4].error == .connectionRefused && !records[4].pending && records[4].timings.wait == 3)
        #expect(records[5].pending && records[5].timings.wait == 27 && records[5].startMs == 13)
    }

    @Test("from the cache: no byte crossed the network, said only where the page may see the sizes")
    func fromCache() throws {
        var state = PageLoadState(navigation: Self.navigation)
        let tao = [HTTPHeader(name: "timing-allow-origin", value: "*")]
        let events: [WebViewEvent] = [
            .navigation(.didStartProvisionalNavigation(Self.navigation)),
            .resource(.started(id: 1, url: Self.url("/"), method: "GET", isMainResource: true, headers: [])),
            .navigation(.didCommit(Self.navigation, NavigationResponse(url: Self.url("/"), statusCode: 200, mimeType: "text/html",
                headers: [], expectedContentLength: nil, suggestedFilename: nil, canShowMIMEType: true))),
            .resource(.started(id: 2, url: Self.url("/cached.css"), method: "GET", isMainResource: false, headers: [])),
            .resource(.started(id: 3, url: Self.url("/fetched.css"), method: "GET", isMainResource: false, headers: [])),
            .resource(.started(id: 4, url: URL(string: "http://cdn/x.js")!, method: "GET", isMainResource: false, headers: [])),
            .resource(.started(id: 5, url: URL(string: "http://cdn/y.js")!, method: "GET", isMainResource: false, headers: [])),
            .resource(.started(id: 6, url: URL(string: "http://cdn/z.js")!, method: "GET", isMainResource: false, headers: [])),
            .resource(.finished(id: 1, url: Self.url("/"), status: 200, mimeType: "text/html", headers: [])),
            .resource(.finished(id: 2, url: Self.url("/cached.css"), status: 200, mimeType: "text/css", headers: [])),
            .resource(.finished(id: 3, url: Self.url("/fetched.css"), status: 200, mimeType: "text/css", headers: [])),
            .resource(.finished(id: 4, url: URL(string: "http://cdn/x.js")!, status: 200, mimeType: "text/javascript", headers: [])),
            .resource(.finished(id: 5, url: URL(string: "http://cdn/y.js")!, status: 200, mimeType: "text/javascript", headers: tao)),
            // Timing allowed to another origin only: the page sees no sizes.
            .resource(.finished(id: 6, url: URL(string: "http://cdn/z.js")!, status: 200, mimeType: "text/javascript",
                                headers: [HTTPHeader(name: "Timing-Allow-Origin", value: "http://other, http://else")])),
            .navigation(.didFinish(Self.navigation)),
        ]
        for event in events { state.apply(event, at: .zero) }
        let facts = try Self.facts("""
            ["http://h/cached.css", "link", 6, 6, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0],
            ["http://h/fetched.css", "link", 6, 6, 6, 6, 6, 6, 0, 7, 8, 9, 330, 30, 30],
            ["http://cdn/x.js", "script", 6, 6, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0],
            ["http://cdn/y.js", "script", 6, 6, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0],
            ["http://cdn/z.js", "script", 6, 6, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0]
            """)
        let records = RequestRecord.records(of: state, facts: facts, now: .zero)
        #expect(records.map(\.fromCache) == [false, true, false, nil, true, nil])
        #expect(records.map(\.transferBytes) == [600, 0, 330, nil, 0, nil])
        var report = PageLoadReport(url: "http://h/", depth: 0, parent: nil, outcome: .ok)
        report.requests = records
        report.summariseRequests()
        #expect(report.resources.fromCache == 2)
    }

    @Test("per-type weights and the hosts of other sites")
    func summary() throws {
        var report = PageLoadReport(url: "http://www.example.org/", depth: 0, parent: nil, outcome: .ok)
        let state = Self.page()
        var records = RequestRecord.records(of: state, facts: try Self.facts(""), now: .milliseconds(40))
        records[0].url = "http://www.example.org/"
        records[1].url = "http://cdn.example.org/s.css"
        records[2].url = "http://www.example.org/old.png"
        records[4].url = "https://example.org/a.js"
        records[3].url = "http://images.other.net/new.png"
        records[5].url = "http://10.0.0.1/api"
        report.requests = records
        report.summariseRequests()
        #expect(report.resources.byType == [
            "document": .init(count: 1, bytes: 600), "stylesheet": .init(count: 1, bytes: 0),
            "image": .init(count: 2, bytes: 0), "script": .init(count: 1, bytes: 0), "fetch": .init(count: 1, bytes: 0),
        ])
        #expect(report.thirdPartyHosts == ["10.0.0.1", "images.other.net"])
    }

    @Test("screenshot names: readable, safe for any file system, distinct for distinct URLs")
    func screenshotNames() {
        #expect(PageLoadReport.screenshotName(for: "http://127.0.0.1:8080/a/b?c=d") == "127.0.0.1_8080_a_b_c_d-8fd1b51f2ebd4e38.png")
        #expect(PageLoadReport.screenshotName(for: "https://example.org/") != PageLoadReport.screenshotName(for: "http://example.org/"))
        let long = PageLoadReport.screenshotName(for: "http://h/" + String(repeating: "é", count: 200))
        #expect(long.count == 80 + 1 + 16 + 4 && long.hasPrefix("h__"))
    }
}
