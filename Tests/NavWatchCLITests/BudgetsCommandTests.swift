import Foundation
import Testing

@Suite("navwatch budgets and crawl --budgets --fail-on budgets")
struct BudgetsCommandTests {
    /// The demo site: `/missing` throws once, `/slow` answers after 800 ms.
    private static let budgets = """
        [[budget]]
        requests = 5
        page_errors = 0

        [[budget]]
        pattern = "/slow$"
        load_ms = 1
        """

    @Test("a crawl over budget fails after its summary; every format lists each breach once, with the measure and the limit")
    func breaches() async throws {
        let db = temporaryPath("budgets.db"), file = temporaryPath("budgets.toml")
        defer { for path in [db, db + "-wal", db + "-shm", file] { try? FileManager.default.removeItem(atPath: path) } }
        try Self.budgets.write(toFile: file, atomically: true, encoding: .utf8)

        let crawl = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--budgets", file, "--fail-on", "budgets"])
        #expect(crawl.status == 1)
        let summary = crawl.stderr.split(separator: "\n").map(String.init)
        #expect(summary.contains("  budgets: 2 budget breaches on 2 of 4 pages"))
        #expect(summary.contains("  see: navwatch budgets --db \(db) --budgets \(file)"))
        #expect(summary.last == "navwatch: failing (--fail-on budgets)")

        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "jsonl"])
        let reports = try export.stdout.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        let first = try #require(reports.first?["url"] as? String)
        let base = try #require(URL(string: first)).deletingLastPathComponent().absoluteString
        let slow = try #require(reports.first { ($0["url"] as? String) == base + "slow" })
        let slowLoad = try #require((slow["timings"] as? [String: Any])?["load"] as? Double)

        let json = try await NavwatchProcess.run(["budgets", "--db", db, "--budgets", file, "--format", "json"])
        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.joined().utf8)) as? [String: Any])
        #expect(document["pages"] as? Int == 4)
        let breaches = try #require(document["breaches"] as? [[String: Any]])
        let rows = Set(breaches.map { "\($0["url"]!) \($0["budget"]!) \($0["measured"]!) \($0["limit"]!) \($0["pattern"] ?? "-")" })
        #expect(rows == ["\(base)missing page_errors 1 0 -", "\(base)slow load_ms \(slowLoad.formatted(.number.grouping(.never))) 1 /slow$"])

        let text = try await NavwatchProcess.run(["budgets", "--db", db, "--budgets", file])
        let load = slowLoad.rounded() == slowLoad ? String(Int(slowLoad)) : String(format: "%.1f", slowLoad)
        let blocks = [[base + "missing", "  page_errors: 1 > 0"], [base + "slow", "  load_ms: \(load) ms > 1 ms (budget /slow$)"]]
        // Pages in the order stored, as export lists them.
        let stored = reports.compactMap { $0["url"] as? String }
        let inOrder = blocks.sorted { stored.firstIndex(of: $0[0])! < stored.firstIndex(of: $1[0])! }
        #expect(text.stdout == inOrder.flatMap { $0 } + ["2 budget breaches on 2 of 4 pages"])

        let markdown = try await NavwatchProcess.run(["budgets", "--db", db, "--budgets", file, "--format", "markdown"])
        #expect(markdown.stdout.prefix(3) == ["## Budgets", "", "2 budget breaches on 2 of 4 pages."])
        #expect(Set(markdown.stdout.dropFirst(6)) == ["| `\(base)missing` | page_errors | 1 | 0 |",
                                                     "| `\(base)slow` | load_ms | \(load) ms | 1 ms |"])

        // One test case per page and limit: 4 pages × (requests, page_errors), and load_ms on /slow.
        let junit = try await NavwatchProcess.run(["budgets", "--db", db, "--budgets", file, "--format", "junit"])
        let xml = junit.stdout.joined(separator: "\n")
        #expect(xml.contains(#"<testsuite name="budgets" tests="9" failures="2" skipped="0">"#))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 9)
        #expect(xml.contains(#"<failure type="budget" message="page_errors: 1 &gt; 0"/>"#))
    }

    @Test("a bad budget file, or --fail-on budgets without one, stops before any page with one line and status 2")
    func badInput() async throws {
        let db = temporaryPath("budgets.db"), file = temporaryPath("budgets.toml")
        defer { for path in [db, db + "-wal", db + "-shm", file] { try? FileManager.default.removeItem(atPath: path) } }
        try "[[budget]]\nload = 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--budgets", file])
        #expect(bad.status == 2)
        #expect(bad.stderr == "navwatch: \(file): line 2: [[budget]] 1: load is not a budget key (one of pattern, network, bytes_by_type, "
                + "bytes, console_errors, fcp_ms, lcp_ms, load_ms, page_errors, requests)\n")
        #expect(!FileManager.default.fileExists(atPath: db))
        let missing = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--fail-on", "budgets"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--fail-on budgets needs --budgets FILE"))
    }
}
