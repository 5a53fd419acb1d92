import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

@Suite("One count of a crawl's reports: loaded, checked, skipped, blocked, failed")
struct TallyTests {
    @Test("the closing summary, navwatch status, the HTML report, the step summary and --max-pages count one crawl alike")
    func everyCountAgrees() async throws {
        // Outside the scope (another port), on the seed's host: checked.
        let other = try await LoopbackServer.start { _ in .html("<title>Other</title>") }
        // A private address of another host: the guard refuses it.
        let service = try await LoopbackServer.start(host: "127.0.0.2") { _ in .html("<title>Internal</title>") }
        let site = try await LoopbackServer.start { request in
            switch request.path {
            case "/robots.txt": return .text("User-agent: *\nDisallow: /private/\n")
            case "/":
                return .html("""
                    <!doctype html><title>Home</title><a href="/go">go</a><a href="/a">a</a><a href="/missing">missing</a>
                    <a href="/slow">slow</a><a href="/private/x">private</a><a href="\(other.url("/ext"))">ext</a>
                    <a href="\(service.url("/admin"))">admin</a>
                    """)
            case "/a": return .html("<!doctype html><title>A</title>")
            case "/slow": return .hang
            case "/go": return .redirect(to: service.url("/inside").absoluteString)
            default: return .html("<!doctype html><title>Not found</title>", status: 404)
            }
        }
        defer { Task { await site.shutdown(); await other.shutdown(); await service.shutdown() } }
        let db = temporaryPath("tally.db"), stepSummary = temporaryPath("step-summary.md"), out = temporaryPath("tally.html")
        defer {
            removeSQLiteDatabase(atPath: db)
            for path in [stepSummary, out] { try? FileManager.default.removeItem(atPath: path) }
        }
        // Four pages may be loaded: /go, leased before /slow and blocked, is no page loaded, so /slow still is.
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-pages", "4", "--check-external",
                                                   "--timeout", "2", "--retries", "0", site.url("/").absoluteString],
                                                  environment: ["GITHUB_STEP_SUMMARY": stepSummary])
        #expect(crawl.status == 0, "\(crawl.stderr)")
        let outcomes = try crawl.stdout.map { line in
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(report["url"] as? String ?? "?") \(report["outcome"] as? String ?? "?")"
        }
        let base = site.url("/").absoluteString
        #expect(outcomes.sorted() == [
            other.url("/ext").absoluteString + " ok",
            base + " ok", base + "a ok", base + "go blocked", base + "missing http-error", base + "private/x skipped",
            base + "slow timeout", service.url("/admin").absoluteString + " blocked",
        ].sorted())

        let sentence = "4 pages loaded, 1 checked, 1 skipped, 2 blocked, 1 failed"
        #expect(crawl.stderr.split(separator: "\n").first?.hasPrefix("crawl: \(sentence) in ") == true, "\(crawl.stderr)")
        #expect(crawl.stderr.contains("  outcomes: http-error 1, ok 2, timeout 1\n"))

        let status = try await NavwatchProcess.run(["status", "--db", db])
        #expect(status.stdout.first == "done 8 (\(sentence)), leased 0, queued 0")
        let json = try await NavwatchProcess.run(["status", "--db", db, "--json"])
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
        #expect(["done", "loaded", "checked", "skipped", "blocked", "failed"].map { counts[$0] as? Int }
                    == [8, 4, 1, 1, 2, 1])

        let report = try await NavwatchProcess.run(["report", "--db", db, "--out", out])
        #expect(report.stderr == "report: 4 pages in \(out)\n")
        let html = try String(contentsOfFile: out, encoding: .utf8)
        let figures = ["pages", "ok", "failing", "checked", "skipped"].map { id in
            html.firstRange(of: #"id="figure-\#(id)">"#).map { html[$0.upperBound...].prefix { $0 != "<" } } ?? "?"
        }
        #expect(figures == ["4", "2", "2", "1", "3"])

        // Its first table's row: pages loaded, ok, not ok, links not followed (skipped and blocked), ...
        let markdown = try String(contentsOfFile: stepSummary, encoding: .utf8).split(separator: "\n")
        let row = markdown.firstIndex { $0.hasPrefix("|---") }.map { markdown[$0 + 1] }
        #expect(row?.hasPrefix("| 4 | 2 | 2 | 3 | ") == true, "\(markdown)")
    }
}
