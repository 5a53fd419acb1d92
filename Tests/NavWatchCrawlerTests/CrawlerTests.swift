import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
@testable import NavWatchCrawler
import Synchronization
import Testing
import WebKitThread

/// Runs a crawl of a fresh `CrawlSite` into a fresh database.
private func crawl(_ seeds: [String] = ["/"], configure: (inout CrawlConfiguration) -> Void = { _ in },
                   hook: (@WebKitActor @Sendable (URL, WebView) -> Void)? = nil,
                   body: (CrawlSite, [PageLoadReport], SQLiteCrawlStore) async throws -> Void) async throws {
    let site = try await CrawlSite.start()
    defer { Task { await site.shutdown() } }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-\(UUID().uuidString).db").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let store = try SQLiteCrawlStore(path: path)
    var configuration = CrawlConfiguration(seeds: seeds.map(site.url))
    configuration.backoff = .milliseconds(50)
    configure(&configuration)
    let crawler = try Crawler(configuration: configuration, store: store)
    await crawler.setLoadStartedHook(hook)
    let streamed = Streamed()
    let summary = try await withDeadline("the crawl to end", within: .seconds(120)) {
        try await crawler.run { report in streamed.reports.withLock { $0.append(report) } }
    }
    let reports = streamed.reports.withLock { $0 }
    var counted = CrawlSummary(reports)
    (counted.retries, counted.elapsed) = (summary.retries, summary.elapsed)
    #expect(summary == counted)
    let stored = try await store.allReports()
    #expect(stored.map(\.jsonLine) == reports.map(\.jsonLine))
    try await body(site, reports, store)
}

/// The reports a crawl delivered, in delivery order.
private final class Streamed: Sendable {
    let reports = Mutex<[PageLoadReport]>([])
}

/// `path outcome[/skip reason]` per report, the site's base cut off, sorted.
private func shape(_ reports: [PageLoadReport], _ site: CrawlSite) -> [String] {
    reports.map { report in
        let url = report.url.replacingOccurrences(of: site.base, with: "")
        return "\(url) \(report.outcome.rawValue)" + (report.skipReason.map { "/\($0.rawValue)" } ?? "")
    }.sorted()
}

private let offSite = ["ftp://127.0.0.1/file skipped/non-http", "http://off-site.invalid/ skipped/scope"]

@Suite("Crawler against a loopback site")
struct CrawlerTests {
    @Test("a full crawl reports every page once; duplicates, fragments, mailto: and javascript: are not")
    func fullCrawl() async throws {
        try await crawl { site, reports, _ in
            #expect(shape(reports, site) == ([
                "/ ok", "/p1 ok", "/p1-1 ok", "/p1-2 ok", "/p2 ok", "/p2-1 ok", "/p2-2 ok", "/p3 ok", "/p3-1 ok",
                "/p3-2 ok", "/private/secret skipped/robots", "/r1 ok",
            ] + offSite).sorted())
            #expect(Set(reports.map(\.url)).count == reports.count)
            // /p1 was loaded once for itself and once more as /r1's redirect target, and reported once.
            #expect(site.hitCount("/p1") == 2)
            #expect(reports.filter { $0.url == site.base + "/p1" }.count == 1)
            #expect(site.hitCount("/robots.txt") == 1)
            #expect(site.hitCount("/private/secret") == 0)
            let home = try #require(reports.first { $0.url == site.base + "/" })
            #expect(home.depth == 0 && home.parent == nil && home.title == "Home" && home.status == 200)
            #expect(home.links == 11)
            #expect(home.timings.commit != nil && home.timings.finish != nil && home.timings.load != nil)
            #expect(home.resources.count == 1 && home.resources.transferBytes > 0)
            let redirected = try #require(reports.first { $0.url == site.base + "/r1" })
            #expect(redirected.redirects == [.init(url: site.base + "/r1", status: 302)])
            #expect(redirected.finalURL == site.base + "/p1")
            let leaf = try #require(reports.first { $0.url == site.base + "/p2-1" })
            #expect(leaf.depth == 2 && leaf.parent == site.base + "/p2")
        }
    }

    @Test("a report counts the page's console errors and warnings and lists its first five page errors")
    func consoleAndPageErrors() async throws {
        try await crawl(["/noisy", "/p1-1"], configure: { $0.maxDepth = 0 }) { site, reports, _ in
            let noisy = try #require(reports.first { $0.url == site.url("/noisy").absoluteString })
            #expect(noisy.console == .init(errors: 2, warnings: 1))
            #expect(noisy.pageErrors?.map(\.message) == (1...5).map { "Error: error \($0)" })
            #expect(noisy.pageErrors?.map(\.line) == Array(repeating: 3, count: 5))
            #expect(noisy.pageErrors?.allSatisfy { $0.url == site.url("/noisy").absoluteString } == true)
            #expect(noisy.pageErrorCount == 6)
            let quiet = try #require(reports.first { $0.url == site.url("/p1-1").absoluteString })
            #expect(quiet.console == .init(errors: 0, warnings: 0))
            #expect(quiet.pageErrors == [] && quiet.pageErrorCount == 0)
            #expect(quiet.jsonLine.contains(#""console":{"errors":0,"warnings":0}"#))
            #expect(quiet.jsonLine.contains(#""page_error_count":0,"page_errors":[]"#))
        }
    }

    @Test("render never: the document alone, fetched and read; the links of its markup only", arguments: [RenderMode.never, .auto])
    func readFromHTML(mode: RenderMode) async throws {
        try await crawl(["/styled"], configure: { ($0.maxDepth, $0.render) = (0, mode) }) { site, reports, store in
            let styled = try #require(reports.first { $0.url == site.url("/styled").absoluteString })
            let rendered = mode == .auto  // the first page of its kind is a sample
            #expect(styled.outcome == .ok && styled.title == "Styled" && styled.status == 200)
            #expect(styled.rendered == rendered && styled.renderReason == (rendered ? .sample : .never))
            #expect(styled.links == (rendered ? 3 : 1))
            #expect(styled.resources.count == (rendered ? 4 : 1))
            #expect(styled.resources.byType.keys.sorted() == (rendered ? ["document", "image", "script", "stylesheet"] : ["document"]))
            #expect(styled.console == (rendered ? .init(errors: 0, warnings: 0) : nil))
            #expect(styled.metrics == nil || rendered)
            #expect(styled.timings.commit == nil || rendered)
            #expect(try #require(styled.timings.finish) > 0 && styled.timings.ttfb != nil)
            #expect(site.hitCount("/styled") == (rendered ? 2 : 1))  // read, then rendered
            // Each resource is asked for once: by the rendered page, whose answer reports it, or checked with HTTP.
            for path in ["/style.css", "/app.js", "/pic.gif"] { #expect(site.hitCount(path) == 1, "\(path)") }
            let graph = try await store.linkGraph().links
            let linked = graph.filter { !$0.isResource }.map { $0.target.replacingOccurrences(of: site.base, with: "") }
            #expect(linked == (rendered ? ["/p1", "/p2", "/p3"] : ["/p1"]))
            let embedded = graph.filter(\.isResource).map { "\($0.target.replacingOccurrences(of: site.base, with: "")) \($0.element)" }
            #expect(embedded == ["/style.css link", "/pic.gif img", "/app.js script"])
            let checks = reports.filter { $0.checkedWith != nil }.map { "\($0.url.replacingOccurrences(of: site.base, with: "")) \($0.status ?? 0)" }
            #expect(checks.sorted() == ["/app.js 200", "/pic.gif 200", "/style.css 200"])
            #expect(reports.filter { $0.checkedWith != nil }.allSatisfy { $0.checkedWith == (rendered ? .page : .head) })
        }
    }

    @Test("metrics: scripts and style sheets before the first paint, the DOM's size, the largest resource, LCP or why not")
    func metrics() async throws {
        try await crawl(["/styled"], configure: { $0.maxDepth = 0 }) { site, reports, _ in
            let styled = try #require(reports.first { $0.url == site.url("/styled").absoluteString })
            let metrics = try #require(styled.metrics)
            #expect(metrics.renderBlockingRequests == 2)  // /style.css and /app.js; not /pic.gif
            // html head title link body a img script script, the a the inline script adds and the one app.js adds
            #expect(metrics.domSize == 11)
            #expect(metrics.largestResource == .init(url: site.url("/styled").absoluteString, bytes: CrawlSite.styled.utf8.count))
            let span = try #require(metrics.firstByteToLastResource)
            #expect(span > 0 && span < (styled.timings.finish ?? 0))
            if metrics.largestContentfulPaint == nil {
                #expect([.noLCPEntries, .noLCPEntry].contains(metrics.largestContentfulPaintUnavailable))
            } else {
                #expect(metrics.largestContentfulPaintUnavailable == nil)
            }
            #expect(styled.jsonLine.contains(#""largest_contentful_paint":null"#) == (metrics.largestContentfulPaint == nil))
        }
    }

    @Test("breadth first: no page starts loading before every shallower page was taken", arguments: [1, 2])
    func breadthFirst(concurrency: Int) async throws {
        // Reports come in the order pages *finish*, which a slow page can
        // delay at will; the order is a property of when pages start.
        let started = Mutex<[String]>([])
        try await crawl(configure: { $0.concurrency = concurrency }, hook: { url, _ in
            if url.scheme != "about" { started.withLock { $0.append(url.absoluteString) } }
        }) { _, reports, _ in
            let depthOf = Dictionary(uniqueKeysWithValues: reports.map { ($0.url, $0.depth) })
            let depths = started.withLock { $0 }.compactMap { depthOf[$0] }
            #expect(depths.count == reports.filter { $0.outcome == .ok }.count, "started: \(started.withLock { $0 }), depths: \(depths)")
            // With n views, a deeper page may only overtake the last n - 1 shallower ones.
            for (index, depth) in depths.enumerated() {
                #expect(depths.dropFirst(index + concurrency).allSatisfy { $0 >= depth }, "depths: \(depths) \(started.withLock { $0 })")
            }
        }
    }

    @Test("--max-depth 0 and 1 report deeper links as skipped")
    func maxDepth() async throws {
        try await crawl(configure: { $0.maxDepth = 0 }) { site, reports, _ in
            #expect(shape(reports, site) == ([
                "/ ok", "/p1 skipped/max-depth", "/p2 skipped/max-depth", "/p3 skipped/max-depth",
                "/r1 skipped/max-depth", "/private/secret skipped/max-depth",
            ] + offSite).sorted())
        }
        try await crawl(configure: { $0.maxDepth = 1 }) { site, reports, _ in
            #expect(reports.filter { $0.outcome == .ok }.count == 5)
            #expect(reports.filter { $0.skipReason == .maxDepth }.count == 6)
        }
    }

    @Test("--max-pages is exact; the rest of the frontier is reported as skipped")
    func maxPages() async throws {
        try await crawl(configure: { $0.maxPages = 3 }) { _, reports, store in
            #expect(reports.filter { $0.outcome != .skipped }.count == 3)
            #expect(reports.contains { $0.skipReason == .maxPages })
            let queued = try await store.counts().queued
            #expect(queued == 0)
        }
    }

    @Test("--include and --exclude decide which links are followed")
    func includeExclude() async throws {
        try await crawl(configure: { $0.include = ["/p1"] }) { site, reports, _ in
            #expect(reports.filter { $0.outcome == .ok }.map { $0.url.replacingOccurrences(of: site.base, with: "") }.sorted()
                    == ["/", "/p1", "/p1-1", "/p1-2"])
        }
        try await crawl(configure: { $0.exclude = ["p2"] }) { site, reports, _ in
            #expect(reports.filter { $0.outcome == .ok }.map { $0.url.replacingOccurrences(of: site.base, with: "") }.sorted()
                    == ["/", "/p1", "/p1-1", "/p1-2", "/p3", "/p3-1", "/p3-2", "/r1"])
            #expect(reports.first { $0.url.hasSuffix("/p2") }?.skipReason == .scope)
        }
    }

    @Test("scope any follows off-site links; ignoring robots loads /private")
    func scopeAndRobots() async throws {
        try await crawl(configure: { $0.obeyRobots = false; $0.maxDepth = 1; $0.scope = .sameHost }) { site, reports, _ in
            #expect(reports.first { $0.url.hasSuffix("/private/secret") }?.outcome == .ok)
            #expect(site.hitCount("/robots.txt") == 0)
        }
        try await crawl(configure: { $0.maxDepth = 1; $0.scope = .any; $0.timeout = .seconds(5) }) { _, reports, _ in
            let offSite = try #require(reports.first { $0.url == "http://off-site.invalid/" })
            #expect(offSite.outcome == .failed && offSite.error?.kind == .dns)
        }
    }

    @Test("transient 500s are retried with backoff until the page loads")
    func retries() async throws {
        try await crawl(["/flaky"]) { site, reports, _ in
            #expect(reports.count == 1)
            #expect(reports[0].outcome == .ok && reports[0].attempts == 3)
            #expect(site.hitCount("/flaky") == 3)
        }
        try await crawl(["/flaky"], configure: { $0.retries = 1 }) { _, reports, _ in
            #expect(reports[0].outcome == .httpError && reports[0].status == 500 && reports[0].attempts == 2)
        }
    }

    @Test("a 429 is retried no sooner than its Retry-After")
    func retryAfter() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        try await crawl(["/busy"]) { _, reports, _ in
            #expect(reports.count == 1 && reports[0].outcome == .ok && reports[0].attempts == 2)
        }
        #expect(clock.now - start >= .seconds(1))
    }

    @Test("a timeout report says which stage the page reached and what was pending")
    func timeoutReport() async throws {
        // 10 s: in a fresh clone on a loaded machine, the first run of its tests, a sandboxed view
        // has taken over 4 s to commit /stall (whose head and first bytes arrive at once).
        try await crawl(["/stall", "/hang"], configure: { $0.timeout = .seconds(10); $0.retries = 0 }) { site, reports, _ in
            let stalled = try #require(reports.first { $0.url.hasSuffix("/stall") })
            #expect(stalled.outcome == .timeout)
            #expect(stalled.timeout == .init(stage: .committed, pendingRequests: [site.base + "/stall"]))
            let hung = try #require(reports.first { $0.url.hasSuffix("/hang") })
            #expect(hung.outcome == .timeout)
            #expect(hung.timeout?.stage == .provisional)
            #expect(hung.timeout?.pendingRequests == [site.base + "/hang"])
        }
    }

    @Test("a web process crash mid-crawl is retried on a fresh view and the crawl completes")
    func crashMidCrawl() async throws {
        let crashed = Mutex(false)
        try await crawl(["/", "/slow-first"], hook: { url, view in
            guard url.path == "/slow-first" else { return }
            let first = crashed.withLock { wasCrashed -> Bool in
                defer { wasCrashed = true }
                return !wasCrashed
            }
            guard first else { return }
            // Once WebKit has started the load (a load not started yet would
            // be issued again in the new process, not fail).
            Task { @WebKitActor in
                let deadline = ContinuousClock.now + .seconds(10)
                while view.activeNavigationStage != .provisional, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                view.terminateWebProcess()
            }
        }) { site, reports, _ in
            #expect(crashed.withLock { $0 })
            let slow = try #require(reports.first { $0.url == site.base + "/slow-first" })
            #expect(slow.outcome == .ok && slow.attempts == 2)
            #expect(reports.filter { $0.outcome == .ok }.count == 12)
        }
    }

    @Test("reports reach onReport in the order they were stored, with one view or several", arguments: [1, 3])
    func deliveryOrderIsStoreOrder(concurrency: Int) async throws {
        // `crawl` compares the delivered, summarised and stored orders itself;
        // the third view and short recycling make stores overlap often.
        try await crawl(configure: { $0.concurrency = concurrency; $0.recycleAfter = 3 }) { _, reports, store in
            let stored = try await store.allReports()
            #expect(stored.map(\.url) == reports.map(\.url))
            #expect(Set(reports.map(\.url)).count == reports.count)
        }
    }

    @Test("views are recycled without losing or repeating a page")
    func recycling() async throws {
        try await crawl(configure: { $0.recycleAfter = 2 }) { _, reports, _ in
            #expect(reports.filter { $0.outcome == .ok }.count == 11)
            #expect(Set(reports.map(\.url)).count == reports.count)
        }
    }
}
