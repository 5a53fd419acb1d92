import Foundation
@testable import NavWatchCrawler
import Testing

@Suite("Budget files: limits per URL pattern, and the breaches they find")
struct BudgetFileTests {
    private static let file = """
        [[budget]]
        load_ms = 2000
        requests = 10
        page_errors = 0

        [[budget]]
        pattern = "/docs/"
        load_ms = 3000.5
        [budget.bytes_by_type]
        script = 1_000
        """

    private static func report(_ url: String, load: Double?, requests: Int, scriptBytes: Int = 0, pageErrors: Int = 0,
                               outcome: PageLoadReport.Outcome = .ok) -> PageLoadReport {
        var report = PageLoadReport(url: url, depth: 0, parent: nil, outcome: outcome)
        report.timings.load = load
        report.resources.count = requests
        if scriptBytes > 0 { report.resources.byType["script"] = .init(count: 1, bytes: scriptBytes) }
        report.pageErrorCount = pageErrors
        return report
    }

    @Test("a page takes every matching budget's limits; the last one that sets a limit wins")
    func limits() throws {
        let budgets = try BudgetFile(Self.file, name: "b.toml")
        let docs = budgets.limits(for: Self.report("https://x/docs/a", load: nil, requests: 0)).map { "\($0.metric.key)=\($0.limit)@\($0.budget.number)" }
        #expect(docs == ["load_ms=3000.5@2", "bytes_by_type.script=1000.0@2", "requests=10.0@1", "page_errors=0.0@1"])
        let home = budgets.limits(for: Self.report("https://x/", load: nil, requests: 0)).map { "\($0.metric.key)=\($0.limit)@\($0.budget.number)" }
        #expect(home == ["load_ms=2000.0@1", "requests=10.0@1", "page_errors=0.0@1"])
    }

    @Test("a budget that names a network applies to the pages loaded over it; timings are checked on the medians of runs")
    func networksAndRuns() throws {
        let budgets = try BudgetFile("""
            [[budget]]
            load_ms = 500
            [[budget]]
            network = "3gfast"
            load_ms = 2000
            """, name: "b.toml")
        var slow = Self.report("https://x/", load: 1500, requests: 1)
        #expect(budgets.breaches(of: slow).map(\.line) == ["load_ms: 1500 ms > 500 ms"])
        slow.network = try NetworkProfile(parsing: "3GFast")
        #expect(budgets.breaches(of: slow).isEmpty)
        slow.network = try NetworkProfile(parsing: "3G")
        #expect(budgets.breaches(of: slow).map(\.line) == ["load_ms: 1500 ms > 500 ms"])
        // Runs of 1500, 400 and 450 ms: the median, 450, is within 500.
        var runs = Self.report("https://x/", load: 1500, requests: 1)
        for load in [400.0, 450] { var timings = PageLoadReport.Timings(); timings.load = load; runs.addRun(timings) }
        #expect(runs.timings.load == 450 && runs.runs?.map(\.load) == [1500, 400, 450])
        #expect(budgets.breaches(of: runs).isEmpty)
        #expect(throws: TOMLFileError.self) { try BudgetFile("[[budget]]\nnetwork = \"5G\"\nload_ms = 1", name: "b.toml") }
    }

    @Test("each limit a page goes over is one breach, with the measure and the limit; at the limit is within")
    func breaches() throws {
        let budgets = try BudgetFile(Self.file, name: "b.toml")
        let docs = Self.report("https://x/docs/a", load: 2500, requests: 11, scriptBytes: 1001, pageErrors: 2)
        #expect(budgets.breaches(of: docs) == [
            BudgetBreach(url: "https://x/docs/a", metric: .bytesOfType("script"), measured: 1001, limit: 1000, pattern: "/docs/"),
            BudgetBreach(url: "https://x/docs/a", metric: .requests, measured: 11, limit: 10, pattern: nil),
            BudgetBreach(url: "https://x/docs/a", metric: .pageErrors, measured: 2, limit: 0, pattern: nil),
        ])
        #expect(budgets.breaches(of: Self.report("https://x/", load: 2000, requests: 10)) == [])
        #expect(budgets.breaches(of: Self.report("https://x/", load: 2000.1, requests: 1)).map(\.budget) == ["load_ms"])
        // No load event: not measured, not a breach. Pages not loaded in a view: no budgets.
        #expect(budgets.breaches(of: Self.report("https://x/", load: nil, requests: 1)) == [])
        #expect(budgets.breaches(of: Self.report("https://x/", load: 9999, requests: 99, outcome: .timeout)) == [])
        var checked = Self.report("https://y/", load: nil, requests: 99)
        checked.checkedWith = .head
        #expect(budgets.breaches(of: checked) == [])
    }

    @Test("a bad file is one line naming the file, the line and the key", arguments: [
        ("load_ms = 1", "b.toml: line 1: unknown key load_ms (a budget file has [[budget]] tables)"),
        ("[[budget]]\nload_ms = \"fast\"", "b.toml: line 2: [[budget]] 1: load_ms must be a number of 0 or more"),
        ("[[budget]]\nrequests = 1\n[[budget]]\n\nrequests = -1",
         "b.toml: line 5: [[budget]] 2: requests must be a number of 0 or more"),
        ("[[budget]]\nlod_ms = 1",
         "b.toml: line 2: [[budget]] 1: lod_ms is not a budget key (one of pattern, network, bytes_by_type, bytes, console_errors, fcp_ms, lcp_ms, load_ms, page_errors, requests)"),
        ("[[budget]]\npattern = \"(\"", "b.toml: line 2: [[budget]] 1: pattern is not a regular expression: ("),
        ("[[budget]]\n[budget.bytes_by_type]\nscripts = 1",
         "b.toml: line 3: [[budget]] 1: bytes_by_type.scripts is no resource type (one of document, stylesheet, script, image, font, fetch, media, other)"),
        ("[budget]\nload_ms = 1", "b.toml: line 1: budget must be an array of tables: write [[budget]]"),
        ("[[budget]]\nload_ms = = 1", "b.toml: line 2: Error while parsing value: could not determine value type"),
    ])
    func badFiles(text: String, message: String) {
        #expect(throws: TOMLFileError.self) { try BudgetFile(text, name: "b.toml") }
        do { _ = try BudgetFile(text, name: "b.toml") } catch { #expect(error.description == message) }
    }
}
