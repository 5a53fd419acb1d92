import Foundation
import Testing

@Suite("navwatch crawl --baseline")
struct BaselineTests {
    @Test("a crawl fails only on problems its baseline does not have, and its summary counts new, known and fixed")
    func newProblemsOnly() async throws {
        let site = try await ChangingSite.start()
        defer { Task { await site.shutdown() } }
        let directory = temporaryPath("baseline")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = directory + "/old.db"
        let first = try await NavwatchProcess.run(["crawl", "--db", old, "--fail-on", "broken", site.base + "/"])
        #expect(first.status == 1)  // /fixed and /always-missing are broken

        // The same site again: both broken links are known.
        let same = try await NavwatchProcess.run(["crawl", "--db", directory + "/same.db", "--baseline", old, "--fail-on", "broken",
                                                  site.base + "/"])
        #expect(same.status == 0)
        #expect(same.stderr.split(separator: "\n").map(String.init).contains("  baseline \(old): 0 new problems, 2 known, 0 fixed"))

        site.switchToVersion2()
        let stepSummary = directory + "/step-summary.md"
        try "# Earlier step\n".write(toFile: stepSummary, atomically: true, encoding: .utf8)
        let new = try await NavwatchProcess.run(["crawl", "--db", directory + "/new.db", "--baseline", old, "--fail-on", "broken",
                                                 site.base + "/"], environment: ["GITHUB_STEP_SUMMARY": stepSummary])
        #expect(new.status == 1)
        let lines = new.stderr.split(separator: "\n").map { site.relative(String($0)) }
        let start = try #require(lines.firstIndex { $0.hasPrefix("  baseline ") })
        #expect(Array(lines[start...]) == [
            "  baseline \(old): 2 new problems, 1 known, 1 fixed",
            "    new broken-link A/will-break: 404 Not Found (linked from A/c)",
            "    new page-error A/b: Error: boom",
            "    fixed broken-link A/fixed: 404 Not Found (linked from A/a)",
            "navwatch: failing (--fail-on broken)",
        ])

        // Appended to the job summary: the figures (load times vary), the new problems, the fixed ones.
        let markdown = try String(contentsOfFile: stepSummary, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { site.relative(String($0)).replacing(/\d+ ms/, with: "… ms") }
        #expect(markdown == [
            "# Earlier step",
            "## navwatch crawl", "",
            "| pages loaded | ok | not ok | links not followed | broken links | broken resources | missing fragments "
                + "| missing text fragments | median load | 95th percentile |",
            "|---|---|---|---|---|---|---|---|---|---|",
            "| 11 | 9 | 2 | 0 | 2 | 0 | 0 | 0 | … ms | … ms |", "",
            "**2 new problems** (2 errors, 0 warnings), 1 known, 1 fixed, against the baseline `\(old)`.", "",
            "### New problems", "",
            "| | problem | URL | detail | linked from |", "|---|---|---|---|---|",
            "| ❌ | broken-link | `A/will-break` | 404 Not Found | `A/c` |",
            "| ❌ | page-error | `A/b` | Error: boom |  |", "",
            "### Fixed", "",
            "| | problem | URL | detail | linked from |", "|---|---|---|---|---|",
            "| ✅ | broken-link | `A/fixed` | 404 Not Found | `A/a` |", "",
        ])

        // An annotation per problem of the link check.
        let github = try await NavwatchProcess.run(["links", "--db", directory + "/new.db", "--format", "github"])
        #expect(github.stdout.map(site.relative) == [
            "::error title=broken-link::A/always-missing: 404 Not Found (linked from A/a)",
            "::error title=broken-link::A/will-break: 404 Not Found (linked from A/c)",
        ])

        // A page error is new too, but --fail-on names no kind of it.
        let fragments = try await NavwatchProcess.run(["crawl", "--db", directory + "/fragments.db", "--baseline", old,
                                                       "--fail-on", "fragments,orphans", site.base + "/"])
        #expect(fragments.status == 0)
    }

    @Test("a baseline that is not a crawl database stops the crawl before any page, with one line and status 2")
    func badBaseline() async throws {
        let db = temporaryPath("baseline.db"), missing = temporaryPath("missing.db")
        let crawl = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--baseline", missing])
        #expect(crawl.status == 2)
        #expect(crawl.stderr == "navwatch: no crawl database at \(missing)\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
