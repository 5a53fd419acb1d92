import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("navwatch links and crawl --fail-on")
struct LinksCommandTests {
    @Test("a broken image and style sheet fail --fail-on broken, read from HTML or rendered; links lists them with their pages",
          arguments: [["--fast"], []])
    func brokenResources(mode: [String]) async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/": return .html(#"<!doctype html><title>Home</title><img src="/missing.png" alt="Logo"><a href="/a">a</a>"#)
            case "/a": return .html(#"<!doctype html><title>A</title><link rel="stylesheet" href="/gone.css"><img src="missing.png" alt="Logo">"#)
            default: return .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("resources.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--fail-on", "broken", "--allow-private"] + mode
                                                  + [server.url("/").absoluteString])
        #expect(crawl.status == 1)
        let summary = crawl.stderr.split(separator: "\n").map(String.init)
        #expect(summary.first?.hasPrefix("crawl: 2 pages loaded, 2 checked, 0 skipped, 0 blocked, 0 failed in ") == true)  // the resources are no pages
        #expect(summary.contains("  resources: 2 checked (images, style sheets, scripts, media), 2 not ok"))
        #expect(summary.contains("  links: 4 to 3 targets; broken: 0, external 0, resources 2, missing fragments 0, missing text fragments 0; orphan pages 0"))
        #expect(summary.last == "navwatch: failing (--fail-on broken)")
        let links = try await NavwatchProcess.run(["links", "--db", db, "--broken"])
        let base = server.url("/").absoluteString.dropLast()
        #expect(links.stdout.map { $0.replacingOccurrences(of: base, with: "S") } == [
            "✘ S/gone.css  404 Not Found  (resource)",
            #"    used by S/a  (no text)  (<link href>)"#,
            "✘ S/missing.png  404 Not Found  (resource)",
            #"    used by S/  "Logo"  (<img src>)"#,
            #"    used by S/a  "Logo"  (<img src>)"#,
            "2 broken targets, 3 links to them on 2 pages",
        ])
        // The HTML report has a section of them, and a figure.
        let out = temporaryPath("resources.html")
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(try await NavwatchProcess.run(["report", "--db", db, "--out", out]).status == 0)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        #expect(html.contains("Broken resources: images, style sheets, scripts, media (2)"))
        #expect(html.components(separatedBy: "<ul class=\"referrers\">").count - 1 == 2)
    }

    @Test("a crawl that finds broken links fails with --fail-on; links lists every broken target with every referrer")
    func brokenLinks() async throws {
        let site = try await LinkSite.start()
        defer { Task { await site.shutdown() } }
        let db = temporaryPath("links.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--check-external", "--external-delay", "50",
                                                   "--sitemap", "auto", "--fail-on", "broken", site.base + "/"])
        #expect(crawl.status == 1)
        let summary = crawl.stderr.split(separator: "\n").map(String.init)
        #expect(summary.contains("  links: 15 to 11 targets; broken: 3, external 1, resources 0, missing fragments 1, missing text fragments 0; orphan pages 1"))
        #expect(summary.contains("  see: navwatch links --db \(db) --broken"))
        #expect(summary.last == "navwatch: failing (--fail-on broken)")

        // Blocks in the order of their targets' URLs (the two sites' ports decide it).
        let blocks: [(url: String, lines: [String])] = [
            (site.base + "/a#nowhere", [#"✘ A/a#nowhere  missing fragment: no element with id or name "nowhere""#,
                                        #"    linked from A/  "Missing section""#]),
            (site.base + "/js-missing", ["✘ A/js-missing  404 Not Found", #"    linked from A/  "Added by script""#]),
            (site.base + "/missing", ["✘ A/missing  404 Not Found", #"    linked from A/a  "Missing page""#,
                                      #"    linked from A/b  "gone""#, #"    linked from A/c  "Broken picture""#]),
            (site.base + "/moved", ["✘ A/moved  404 Not Found", #"    linked from A/  "Moved away""#]),
            (site.externalBase + "/gone", ["✘ B/gone  404 Not Found  (external)", #"    linked from A/  "Gone elsewhere""#]),
        ]
        let text = try await NavwatchProcess.run(["links", "--db", db, "--broken"])
        #expect(text.status == 0)
        #expect(text.stdout.map(site.relative) == blocks.sorted { $0.url < $1.url }.flatMap(\.lines) + [
            "pages only the sitemap leads to (no loaded page links to them):", "    A/orphan",
            "5 broken targets, 7 links to them on 4 pages; 1 orphan page",
        ])

        let csv = try await NavwatchProcess.run(["links", "--db", db, "--broken", "--format", "csv"])
        #expect(csv.stdout.allSatisfy { $0.hasSuffix("\r") })  // RFC 4180 lines end in CRLF
        let rows = csv.stdout.map { site.relative(String($0.dropLast())) }
        #expect(rows.first == "target,problem,detail,status,external,source,text,href,element,rel,resource")
        #expect(Set(rows.dropFirst()) == [
            #"A/a#nowhere,missing-fragment,"no element with id or name ""nowhere""",200,false,A/,Missing section,/a#nowhere,a,,"#,
            "A/js-missing,http-error,404 Not Found,404,false,A/,Added by script,/js-missing,a,,",
            "A/missing,http-error,404 Not Found,404,false,A/a,Missing page,/missing,a,,",
            "A/missing,http-error,404 Not Found,404,false,A/b,gone,/missing,a,,",
            "A/missing,http-error,404 Not Found,404,false,A/c,Broken picture,/missing,a,,",
            "A/moved,http-error,404 Not Found,404,false,A/,Moved away,/moved,a,,",
            "B/gone,http-error,404 Not Found,404,true,A/,Gone elsewhere,B/gone,a,,",
            "A/orphan,orphan,no loaded page links to it,,false,,,,,,",
        ])

        let junit = try await NavwatchProcess.run(["links", "--db", db, "--format", "junit"])
        let counts = try JUnitCounts(Data(junit.stdout.joined(separator: "\n").utf8))
        #expect(counts == JUnitCounts(testcases: 11, failures: 5, skipped: 0))

        let jsonl = try await NavwatchProcess.run(["links", "--db", db, "--broken", "--format", "jsonl"])
        let objects = try jsonl.stdout.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        #expect(objects.compactMap { $0["kind"] as? String } == ["target", "target", "target", "target", "target", "orphan"])
        let missing = try #require(objects.first { ($0["target"] as? String) == site.base + "/missing" })
        #expect((missing["referrers"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
                == ["Missing page", "gone", "Broken picture"])

        // The same database gates on other findings without crawling again.
        let external = try await NavwatchProcess.run(["crawl", "--db", db, "--resume", "--fail-on", "external"])
        #expect(external.status == 1)
        let none = try await NavwatchProcess.run(["crawl", "--db", db, "--resume", "--fail-on", "orphans,fragments"])
        #expect(none.status == 1)
    }

    @Test("--render never: a page nested too deep to parse says its links were not read, in the summary and in links")
    func linksNotRead() async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/": return .html(#"<!doctype html><title>Home</title><a href="/deep">deep</a>"#)
            case "/deep":
                return .html("<!doctype html><title>Deep</title>" + String(repeating: "<div>", count: 5000) + #"<a href="/gone">gone</a>"#)
            default: return .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("unread.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--render", "never", "--ignore-robots", server.url("/").absoluteString])
        #expect(crawl.status == 0)
        #expect(crawl.stderr.split(separator: "\n").contains(
            "  links not read: 1 page whose HTML was not parsed (links_not_read in its report; --render auto renders them)"))
        let text = try await NavwatchProcess.run(["links", "--db", db, "--broken"])
        #expect(text.status == 0)
        #expect(text.stdout == [
            "pages whose links were not read (--render auto renders them):",
            "    \(server.url("/deep").absoluteString)  nested deeper than 2048 elements",
            "no broken links found among 0 targets; links not read on 1 page",
        ])
        let jsonl = try await NavwatchProcess.run(["links", "--db", db, "--broken", "--format", "jsonl"])
        #expect(jsonl.stdout == [#"{"kind":"links-not-read","reason":"nested deeper than 2048 elements","url":"\#(server.url("/deep").absoluteString)"}"#])
    }
}
