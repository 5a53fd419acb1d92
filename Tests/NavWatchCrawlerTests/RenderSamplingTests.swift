import Foundation
import LoopbackServer
@testable import NavWatchCrawler
import NavWatchTestSupport
import Testing

/// `RenderMode.auto` on a loopback site of three templates with scripts: a
/// menu script that adds the same links to every page of one, a script that
/// changes nothing on another (each with an inline script that carries the
/// page's own path and number), a script that adds a link of the page's own
/// on the third, and pages with no script at all.
@Suite("Rendering only where it can matter (RenderMode.auto)", .serialized)
struct RenderSamplingTests {
    static let menuPages = 40, plainPages = 60, staticPages = 6, treePages = 6, docPages = 6

    /// `/` links to every page; `/menu/N` load `/menu.js` and run
    /// `initMenu('/menu/N')`, which adds links to `/from-menu/1`,
    /// `/from-menu/2` and the missing `/from-menu/gone`; `/tree/N` load
    /// `/tree.js`, which adds a link to `/static/N`;
    /// `/doc/N` and `/doc/sub/N` load `/relative-menu.js` and run
    /// `initRelativeMenu('../')` or `('../../')`, which adds links to
    /// `/from-menu/1` and `/from-menu/2` written relative to the page (as
    /// Doxygen's menu does);
    /// `/plain/N` load `/quiet.js` and run `track('/plain/N', N)` (but
    /// `/plain/7` runs more: another kind); `/static/N` have no script. Odd
    /// pages link to `#top`, which `/plain/N` has as an id in their markup.
    static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        let path = request.path
        func page(_ title: String, script: String?, inline: String? = nil, links: [String]) -> LoopbackResponse {
            .html("<!doctype html><title>\(title)</title><h1 id=\"top\">\(title)</h1>"
                  + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined()
                  + (script.map { "<script src=\"\($0)\"></script>" } ?? "")
                  + (inline.map { "<script>\($0)</script>" } ?? ""))
        }
        switch path {
        case "/":
            let pages = (0..<menuPages).map { "/menu/\($0)" } + (0..<plainPages).map { "/plain/\($0)" }
                + (0..<staticPages).map { "/static/\($0)" } + (0..<treePages).map { "/tree/\($0)" }
                + (0..<docPages).map { "/doc/\($0)" } + (0..<docPages).map { "/doc/sub/\($0)" }
            return page("Home", script: nil, links: pages)
        case "/menu.js":
            return .text("""
                function initMenu(page) {
                  document.addEventListener('DOMContentLoaded', () => {
                    const nav = document.createElement('nav');
                    nav.id = 'menu';
                    nav.dataset.page = page;
                    nav.innerHTML = '<a href="/from-menu/1">one</a><a href="/from-menu/2">two</a><a href="/from-menu/gone">gone</a>';
                    document.body.prepend(nav);
                  });
                }
                """, contentType: "text/javascript")
        case "/relative-menu.js":
            return .text("""
                function initRelativeMenu(relPath) {
                  document.addEventListener('DOMContentLoaded', () => {
                    const nav = document.createElement('nav');
                    nav.innerHTML = `<a href="${relPath}from-menu/1">one</a><a href="${relPath}from-menu/2">two</a>`;
                    document.body.prepend(nav);
                  });
                }
                """, contentType: "text/javascript")
        case "/tree.js":
            return .text("""
                document.addEventListener('DOMContentLoaded', () => {
                  const link = document.createElement('a');
                  link.href = '/static/' + location.pathname.split('/').pop();
                  link.textContent = 'in the tree';
                  document.body.append(link);
                });
                """, contentType: "text/javascript")
        case "/quiet.js":
            return .text("document.documentElement.dataset.seen = 'yes'; function track(path, n) {}", contentType: "text/javascript")
        case "/from-menu/1", "/from-menu/2":
            return page("From the menu", script: nil, links: ["/"])
        case "/refresh":
            return .html("<!doctype html><title>Moving</title><meta http-equiv=\"refresh\" content=\"5; url=/\">")
        case "/klingon":  // an encoding navwatch cannot read
            return .respond(status: 200, headers: [("Content-Type", "text/html; charset=x-klingon")],
                            body: Array("<!doctype html><title>Qapla</title><a href=\"/\">home</a>".utf8))
        case "/huge":  // 50 MB: more than the parser takes
            let row = "<p>" + String(repeating: "x", count: 1000) + "</p>\n"
            return .html("<!doctype html><title>Huge</title><a href=\"/\">home</a>" + String(repeating: row, count: 50_000))
        case "/deep":
            return .html("<!doctype html><title>Deep</title>" + String(repeating: "<div>", count: 5000) + "<a href=\"/\">home</a>")
        default:
            guard let kind = path.split(separator: "/").first, let n = Int(path.split(separator: "/").last ?? "") else {
                return .html("<!doctype html><title>Not found</title>", status: 404)
            }
            let links = ["/"] + (n % 2 == 1 ? ["#top"] : [])
            switch kind {
            case "menu": return page("Menu \(n)", script: "/menu.js", inline: "initMenu('\(path)');", links: links)
            case "tree": return page("Tree \(n)", script: "/tree.js", links: links)
            case "doc":
                let relPath = path.hasPrefix("/doc/sub/") ? "../../" : "../"
                return page("Doc \(n)", script: "/relative-menu.js", inline: "initRelativeMenu('\(relPath)');", links: links)
            case "plain":
                let track = "track('\(path)', \(n));" + (n == 7 ? " track('again', 1);" : "")
                return page("Plain \(n)", script: "/quiet.js", inline: track, links: links)
            case "static": return page("Static \(n)", script: nil, links: links)
            default: return .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
    }

    struct Crawl {
        var reports: [PageLoadReport]
        var graph: LinkGraph

        func report(_ path: String, _ server: LoopbackServer) -> PageLoadReport? {
            reports.first { $0.url == server.url(path).absoluteString }
        }

        /// Every link as `source → target#fragment`, sorted.
        var links: [String] {
            graph.links.map { "\($0.source) → \($0.target)#\($0.fragment ?? "")" }.sorted()
        }
    }

    static func crawl(_ server: LoopbackServer, _ mode: RenderMode, seeds: [String] = ["/"]) async throws -> Crawl {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sampling-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: seeds.map(server.url))
        (configuration.retries, configuration.obeyRobots, configuration.allowPrivateAddresses) = (0, false, true)
        configuration.render = mode
        let crawler = try Crawler(configuration: configuration, store: store)
        _ = try await withDeadline("the \(mode) crawl", within: .seconds(180)) { try await crawler.run { _ in } }
        let crawl = Crawl(reports: try await store.allReports(), graph: try await store.linkGraph())
        await store.close()
        return crawl
    }

    @Test("the same pages and links as a full crawl; the menu's and the quiet pages sampled, the tree's all rendered")
    func sampling() async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let full = try await Self.crawl(server, .always)
        let auto = try await Self.crawl(server, .auto)

        #expect(auto.reports.map(\.url).sorted() == full.reports.map(\.url).sorted())
        #expect(auto.links == full.links)
        #expect(auto.report("/from-menu/gone", server)?.status == 404)
        #expect(auto.report("/from-menu/1", server)?.outcome == .ok)

        let reason = { (path: String) in auto.report(path, server)?.renderReason?.rawValue }
        #expect(reason("/") == "no-scripts")
        for n in 0..<Self.staticPages { #expect(reason("/static/\(n)") == "no-scripts") }
        // The menu's kind: every render adds the same three links, so after three samples its pages are read
        // from HTML and given them, each said to come from the samples' renders; the spot checks agree.
        let menu = (0..<Self.menuPages).map { (path: "/menu/\($0)", reason: reason("/menu/\($0)")) }
        #expect(menu.count { $0.reason == "sample" } == RenderSampler.sampleSize)
        let samples = Set(menu.filter { $0.reason == "sample" }.map { server.url($0.path).absoluteString })
        for page in menu where page.reason != "sample" {
            let url = server.url(page.path).absoluteString
            #expect(page.reason == (RenderSampler.isSpotChecked(url) ? "spot-check" : "sample-agreed"), "\(page.path)")
            let menuLinks = auto.graph.links.filter { $0.source == url && $0.target.contains("/from-menu/") }
            #expect(menuLinks.map { "\($0.target) \($0.text) \($0.element)" }.sorted() == [
                server.url("/from-menu/1").absoluteString + " one a", server.url("/from-menu/2").absoluteString + " two a",
                server.url("/from-menu/gone").absoluteString + " gone a",
            ], "\(page.path)")
            let provenance = Set(menuLinks.map { Set($0.learnedFrom ?? []) })
            #expect(provenance == [page.reason == "sample-agreed" ? samples : []], "\(page.path)")
        }
        // So the missing page the menu links to is broken, linked from every menu page, as in the full crawl.
        let broken = { (crawl: Crawl) in
            LinkCheckResult(graph: crawl.graph, reports: crawl.reports).broken.first { $0.target.hasSuffix("/from-menu/gone") }
        }
        #expect(try #require(broken(auto)).referrers.map(\.source).sorted() == (0..<Self.menuPages).map { server.url("/menu/\($0)").absoluteString }.sorted())
        #expect(broken(auto)?.referrers.map(\.source).sorted() == broken(full)?.referrers.map(\.source).sorted())
        // Doxygen's menu, written relative to each page (`../from-menu/1`, `../../from-menu/1`): learned in the
        // samples' directory, rendered once in the other before its pages there are read from HTML too.
        let doc = (0..<Self.docPages).flatMap { ["/doc/\($0)", "/doc/sub/\($0)"] }.map { (path: $0, reason: reason($0)) }
        let docSamples = doc.filter { $0.reason == "sample" }
        #expect(docSamples.count >= RenderSampler.sampleSize && docSamples.count <= RenderSampler.sampleSize + 1, "\(doc)")
        #expect(Set(docSamples.map { $0.path.hasPrefix("/doc/sub/") }) == [true, false], "\(doc)")
        for page in doc where page.reason != "sample" {
            let url = server.url(page.path).absoluteString
            #expect(page.reason == (RenderSampler.isSpotChecked(url) ? "spot-check" : "sample-agreed"), "\(page.path)")
        }
        // The tree's kind: each render adds a link of its own page, so the kind is rendered.
        let tree = (0..<Self.treePages).map { reason("/tree/\($0)") ?? "none" }
        #expect(tree.count { $0 == "sample" } >= 1 && tree.allSatisfy { $0 == "sample" || $0 == "kind-disagreed" }, "\(tree)")
        // The quiet kind, whose inline scripts differ only in their literals: three samples agree; after them
        // only the spot checks are rendered. /plain/7, whose inline script does more, is a kind of its own.
        #expect(reason("/plain/7") == "sample")
        let plain = (0..<Self.plainPages).filter { $0 != 7 }
            .map { (url: server.url("/plain/\($0)").absoluteString, reason: reason("/plain/\($0)")) }
        #expect(plain.count { $0.reason == "sample" } == RenderSampler.sampleSize)
        for page in plain where page.reason != "sample" {
            #expect(page.reason == (RenderSampler.isSpotChecked(page.url) ? "spot-check" : "sample-agreed"), "\(page.url)")
        }
        let renderedPlain = plain.count { ["sample", "spot-check"].contains($0.reason) }
        #expect(renderedPlain <= RenderSampler.sampleSize + Self.plainPages / 10)
        for report in auto.reports where report.wasLoaded && report.checkedWith == nil {
            #expect(report.rendered == ["sample", "spot-check", "kind-disagreed"].contains(report.renderReason?.rawValue ?? ""))
        }
        // A page read from HTML keeps its ids, so `#top` links are not missing fragments.
        #expect(auto.graph.anchors == full.graph.anchors)
    }

    /// `/` links to `/late/0` … `/late/19`, whose script adds the same menu
    /// link (`/from-menu/1`) when the document is parsed and, in a task the
    /// page's `load` listener queues, a link of the page's own
    /// (`/late-extra/N`): as a navigation tree that opens at the page once
    /// its index has come does, but always before a read after the load.
    static func lateRoute(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/":
            return .html("<!doctype html><title>Home</title>" + (0..<20).map { "<a href=\"/late/\($0)\">\($0)</a>" }.joined())
        case "/late.js":
            return .text("""
                document.addEventListener('DOMContentLoaded', () => {
                  document.body.insertAdjacentHTML('afterbegin', '<nav><a href="/from-menu/1">one</a></nav>');
                });
                addEventListener('load', () => setTimeout(() => {
                  document.body.insertAdjacentHTML('beforeend', `<a href="/late-extra/${location.pathname.split('/').pop()}">own</a>`);
                }, 0));
                """, contentType: "text/javascript")
        case let path where path.hasPrefix("/late/"):
            return .html("<!doctype html><title>Late</title><a href=\"/\">home</a><script src=\"/late.js\"></script>")
        default:
            return .html("<!doctype html><title>Elsewhere</title><a href=\"/\">home</a>")
        }
    }

    @Test("links a script adds in a task after the load event do not decide a kind: its renders are compared as the load left them")
    func linksAfterTheLoadEvent() async throws {
        let server = try await LoopbackServer.start(route: Self.lateRoute)
        defer { Task { await server.shutdown() } }
        let auto = try await Self.crawl(server, .auto)
        let late = (0..<20).map { (url: server.url("/late/\($0)").absoluteString, reason: auto.report("/late/\($0)", server)?.renderReason?.rawValue) }
        #expect(late.count { $0.reason == "sample" } == RenderSampler.sampleSize, "\(late)")
        let samples = Set(late.filter { $0.reason == "sample" }.map(\.url))
        for page in late where page.reason != "sample" {
            #expect(page.reason == (RenderSampler.isSpotChecked(page.url) ? "spot-check" : "sample-agreed"), "\(page.url)")
            guard page.reason == "sample-agreed" else { continue }
            // The menu the samples' scripts added is learned; the page's own late link is not.
            let links = auto.graph.links.filter { $0.source == page.url && $0.resource == nil }
            #expect(links.map { "\($0.target.dropFirst(server.baseURL.absoluteString.count)) \(Set($0.learnedFrom ?? []) == samples)" }
                        .sorted() == ["/ false", "/from-menu/1 true"], "\(page.url)")
        }
    }

    @Test("never: the menu's links are not found, nothing is rendered")
    func never() async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let never = try await Self.crawl(server, .never)
        #expect(never.report("/from-menu/1", server) == nil)
        #expect(never.reports.filter { $0.wasLoaded && $0.checkedWith == nil }.allSatisfy { $0.rendered == false && $0.renderReason == .never })
        #expect(never.reports.count { $0.wasLoaded && $0.checkedWith == nil } == 1 + Self.menuPages + Self.plainPages + Self.staticPages + Self.treePages
                + 2 * Self.docPages)
    }

    @Test("a 50 MB document and one nested 100,000 deep, read from HTML: a report each, its links not read and why")
    func unparsedNever() async throws {
        let server = try await LoopbackServer.start { request in
            request.path == "/deep" ? .html("<title>Deep</title>" + String(repeating: "<div>", count: 100_000) + "<a href=\"/\">x</a>")
                : Self.route(request)
        }
        defer { Task { await server.shutdown() } }
        let crawl = try await Self.crawl(server, .never, seeds: ["/huge", "/deep"])
        for path in ["/huge", "/deep"] {
            let report = try #require(crawl.report(path, server))
            #expect(report.outcome == .ok && report.status == 200 && report.rendered == false && report.renderReason == .never)
            #expect(report.links == 0 && report.title == nil)
        }
        #expect(crawl.report("/huge", server)?.linksNotRead == "8388609 bytes, more than the parser takes (8388608)")
        #expect(crawl.report("/deep", server)?.linksNotRead == "nested deeper than 2048 elements")
        #expect(CrawlSummary(crawl.reports).pagesWithLinksNotRead == 2)
    }

    /// A mailing-list archive as pipermail writes it (2,100 items without
    /// `</LI>`), a page in UTF-16 with a byte-order mark, one in
    /// windows-1252 named by its `<meta>`: each links to a missing page.
    static func encodedRoute(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/archive":
            let items = (0..<2100).map { "<LI><A HREF=\"/msg/\($0 % 3)\">Re: thread \($0)</A><A NAME=\"m\($0)\">&nbsp;</A>\n<I>someone</I>\n" }
            return .html("<!doctype html><title>Archive</title><UL>" + items.joined() + "<LI><A HREF=\"/gone-from-archive\">last</A></UL>")
        case "/utf16":
            let html = "<!doctype html><title>Caf\u{E9} \u{1F600}</title><a href=\"/gone-from-utf16\">gone</a>"
            return .respond(status: 200, headers: [("Content-Type", "text/html")],
                            body: [0xFF, 0xFE] + html.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case "/cp1252":
            return .respond(status: 200, headers: [("Content-Type", "text/html")],
                            body: Array("<!doctype html><meta charset=\"windows-1252\"><title>Caf".utf8) + [0xE9, 0x80]
                                + Array("</title><a href=\"/gone-from-cp1252\">gone</a>".utf8))
        case "/msg/0", "/msg/1", "/msg/2": return .html("<!doctype html><title>Message</title>")
        default: return .html("<!doctype html><title>Not found</title>", status: 404)
        }
    }

    @Test("never: an archive without end tags, a UTF-16 page and a windows-1252 page give their links and titles",
          arguments: [RenderMode.never, .auto])
    func encodingsAndImpliedEndTags(mode: RenderMode) async throws {
        let server = try await LoopbackServer.start(route: Self.encodedRoute)
        defer { Task { await server.shutdown() } }
        let crawl = try await Self.crawl(server, mode, seeds: ["/archive", "/utf16", "/cp1252"])
        let shown = ["/archive", "/utf16", "/cp1252"].map { path in
            crawl.report(path, server).map { "\(path) \($0.outcome.rawValue) \($0.title ?? "-") \($0.links) \($0.renderReason?.rawValue ?? "-")" }
        }
        let reason = mode == .never ? "never" : "no-scripts"
        #expect(shown == ["/archive ok Archive 2101 \(reason)", "/utf16 ok Caf\u{E9} \u{1F600} 1 \(reason)",
                          "/cp1252 ok Caf\u{E9}\u{20AC} 1 \(reason)"])
        let result = LinkCheckResult(graph: crawl.graph, reports: crawl.reports)
        #expect(result.broken.map { "\($0.target.replacingOccurrences(of: server.baseURL.absoluteString, with: "")) \($0.detail)" } == [
            "/gone-from-archive 404 Not Found", "/gone-from-cp1252 404 Not Found", "/gone-from-utf16 404 Not Found",
        ])
    }

    @Test("pages that must be rendered to be known: a refresh, another encoding, too deep to parse",
          arguments: [("/refresh", "meta-refresh", "Moving"), ("/klingon", "charset", "Qapla"), ("/deep", "unparsed", "Deep")])
    func mustRender(path: String, reason: String, title: String) async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let crawl = try await Self.crawl(server, .auto, seeds: [path])
        let report = try #require(crawl.report(path, server))
        #expect(report.rendered == true && report.renderReason?.rawValue == reason)
        #expect(report.title == title && report.outcome == .ok)
        #expect(report.links == 1 || path == "/refresh")
    }
}
