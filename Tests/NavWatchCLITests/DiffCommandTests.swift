import Foundation
import NavWatchCrawler
import Testing

@Suite("navwatch diff")
struct DiffCommandTests {
    /// `navwatch diff`'s text of the two crawls of `ChangingSite`, the base
    /// as `A`; the slower page's times vary, so its line is matched apart.
    private static let changes = [
        "A/b", "! new page-error: Error: boom",
        "A/c", #"  title: "C" → "C, renamed""#,
        "A/fixed", "  outcome: http-error 404 → ok 200", "  fixed broken-link: was 404 Not Found", "      linked from A/a",
        "A/new", "  added: ok 200",
        "A/pic", "! visual: 11.72 % of pixels differ",
        "A/redirect", "  redirects: 302 A/redirect → A/b → 302 A/redirect → A/c", #"  title: "B" → "C, renamed""#,
        "A/removed", "! removed: was ok 200",
        "A/slow", "! slower: … ms → … ms",
        "A/will-break", "! outcome: ok 200 → http-error 404", "! new broken-link: 404 Not Found", "      linked from A/c",
        "12 changes to 9 URLs, 6 regressions; 11 pages before, 11 after",
        "Slower: a page's time to finish grew by more than 50 % and 1000 ms (one load per page; crawl with --runs 5 or more to test differences).",
    ]

    /// `line` with the numbers of a `slower` change as `…`, and the second number.
    private static func slower(_ line: String) -> (line: String, after: Int?) {
        guard let match = line.firstMatch(of: /slower: (\d+) ms → (\d+) ms/) else { return (line, nil) }
        return (line.replacingCharacters(in: match.range, with: "slower: … ms → … ms"), Int(match.2))
    }

    @Test("two crawls of a site that changed: every change, in every format, and --fail-on-regressions")
    func changes() async throws {
        let site = try await ChangingSite.start()
        defer { Task { await site.shutdown() } }
        let directory = temporaryPath("diff")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = directory + "/old.db", new = directory + "/new.db"
        let first = try await NavwatchProcess.run(["crawl", "--db", old, "--screenshots", directory + "/old", site.base + "/"])
        #expect(first.status == 0)
        site.switchToVersion2()
        let second = try await NavwatchProcess.run(["crawl", "--db", new, "--screenshots", directory + "/new", site.base + "/"])
        #expect(second.status == 0)
        // A page is loaded once per crawl, and on a loaded machine one load
        // can stall for over a second (CI saw /slow's first load take 500 ms
        // more, and an unchanged /c 1000 ms more). Which pages count as
        // slower must not hang on that: every time to finish is set to 50 ms
        // but the second crawl's /slow, which keeps the 1500 ms and more
        // the crawl measured.
        try await Self.setFinishTimes(in: old, to: 50)
        try await Self.setFinishTimes(in: new, to: 50, except: site.base + "/slow")
        let diff = ["diff", old, new, "--slower-by-ms", "1000"]
        let screenshots = ["--old-screenshots", directory + "/old", "--new-screenshots", directory + "/new",
                           "--images", directory + "/images"]

        let text = try await NavwatchProcess.run(diff + screenshots)
        #expect(text.status == 0)
        let lines = text.stdout.map { Self.slower(site.relative($0)) }
        #expect(lines.map(\.line) == Self.changes)
        #expect(lines.compactMap(\.after).count == 1 && lines.compactMap(\.after).allSatisfy { $0 >= 1500 })

        // One line per change; the difference image is in --images.
        let jsonl = try await NavwatchProcess.run(diff + ["--format", "jsonl"] + screenshots)
        let objects = try jsonl.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let rows = objects.map { object in
            // The slower page's times vary: its numbers show as `…`.
            let slower = object["change"] as? String == "slower"
            let fields = ["change", "problem", "before", "after"].map { key in
                (object[key] as? String).map { slower && key != "change" ? $0.replacing(/\d+/, with: "…") : $0 } ?? "-"
            }
            let referrers = (object["referrers"] as? [String])?.joined(separator: " ") ?? "-"
            return site.relative("\(object["url"]!) \(fields.joined(separator: " ")) \(referrers) \(object["regression"] as? Bool == true)")
        }
        #expect(rows == [
            "A/b new page-error - Error: boom - true",
            #"A/c title - "C" "C, renamed" - false"#,
            "A/fixed outcome - http-error 404 ok 200 - false",
            "A/fixed fixed broken-link 404 Not Found - A/a false",
            "A/new added - - ok 200 - false",
            "A/pic visual - - 11.72 % of pixels differ - true",
            "A/redirect redirects - 302 A/redirect → A/b 302 A/redirect → A/c - false",
            #"A/redirect title - "B" "C, renamed" - false"#,
            "A/removed removed - ok 200 - - true",
            "A/slow slower - … ms … ms - true",
            "A/will-break outcome - ok 200 http-error 404 - true",
            "A/will-break new broken-link - 404 Not Found A/c true",
        ])
        let image = try #require(objects.first { ($0["change"] as? String) == "visual" }?["image"] as? String)
        #expect(FileManager.default.fileExists(atPath: directory + "/images/" + image))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/images") == [image])

        let markdown = try await NavwatchProcess.run(diff + ["--format", "markdown"])
        #expect(markdown.stdout.prefix(6).map(site.relative) == [
            "## Changes since the last crawl", "",
            "11 changes to 8 URLs, 5 regressions; 11 pages before, 11 after.", "",
            "| | page | change | before | after |", "|---|---|---|---|---|",
        ])
        #expect(markdown.stdout.dropFirst(6).map { site.relative($0).replacing(/\d+ ms/, with: "… ms") } == [
            "| ❌ | `A/b` | new page-error |  | Error: boom |",
            #"| ✅ | `A/c` | title | "C" | "C, renamed" |"#,
            "| ✅ | `A/fixed` | outcome | http-error 404 | ok 200 |",
            "| ✅ | `A/fixed` | fixed broken-link | 404 Not Found | (linked from `A/a`) |",
            "| ✅ | `A/new` | added |  | ok 200 |",
            "| ✅ | `A/redirect` | redirects | 302 A/redirect → A/b | 302 A/redirect → A/c |",
            #"| ✅ | `A/redirect` | title | "B" | "C, renamed" |"#,
            "| ❌ | `A/removed` | removed | ok 200 |  |",
            "| ❌ | `A/slow` | slower | … ms | … ms |",
            "| ❌ | `A/will-break` | outcome | ok 200 | http-error 404 |",
            "| ❌ | `A/will-break` | new broken-link |  | 404 Not Found (linked from `A/c`) |", "",
            "Slower: a page's time to finish grew by more than 50 % and … ms (one load per page; crawl with --runs 5 or more to test differences).",
        ])

        let junit = try await NavwatchProcess.run(diff + ["--format", "junit"])
        #expect(try JUnitCounts(Data(junit.stdout.joined(separator: "\n").utf8)) == JUnitCounts(testcases: 11, failures: 5, skipped: 0))
        #expect(junit.stdout.map(site.relative).contains(
            #"      <failure type="new.broken-link" message="new broken-link: 404 Not Found">new broken-link: 404 Not Found"#))

        let html = directory + "/diff.html"
        let page = try await NavwatchProcess.run(diff + ["--format", "html", "--out", html] + screenshots)
        #expect(page.status == 0)
        let document = try String(contentsOfFile: html, encoding: .utf8)
        #expect(document.contains(#"<div class="number" id="figure-changes">12</div>"#))
        #expect(document.contains(#"<div class="number" id="figure-regressions">6</div>"#))
        #expect(document.contains(#"<img class="diffimage" src="images/\#(image)" alt="difference image" loading="lazy">"#))

        // An error annotation per regression.
        let github = try await NavwatchProcess.run(diff + ["--format", "github"])
        #expect(github.stdout.map { site.relative($0).replacing(/\d+ ms/, with: "… ms") } == [
            "::error title=new page-error::A/b: new page-error: Error: boom",
            "::error title=removed::A/removed: removed: was ok 200",
            "::error title=slower::A/slow: slower: … ms → … ms",
            "::error title=outcome::A/will-break: outcome: ok 200 → http-error 404",
            "::error title=new broken-link::A/will-break: new broken-link: 404 Not Found (linked from A/c)",
        ])

        let failing = try await NavwatchProcess.run(diff + ["--fail-on-regressions"])
        #expect(failing.status == 1)
        let same = try await NavwatchProcess.run(["diff", new, new, "--fail-on-regressions"])
        #expect(same.status == 0)
        #expect(same.stdout == ["0 changes to 0 URLs, 0 regressions; 11 pages before, 11 after",
                                "Slower: a page's time to finish grew by more than 50 % and 500 ms (one load per page; crawl with --runs 5 or more to test differences)."])
    }

    /// Sets the time to finish of every report in the crawl at `path`, but
    /// `url`'s, to `milliseconds`.
    private static func setFinishTimes(in path: String, to milliseconds: Double, except url: String? = nil) async throws {
        let store = try SQLiteCrawlStore(path: path)
        for stored in try await store.reports(after: 0, limit: 1000, includingRequests: false) where stored.report.url != url {
            var report = stored.report
            report.timings.finish = milliseconds
            try await store.updateTimings(of: report)
        }
        await store.close()
    }

    @Test("bad input gives one line and status 2")
    func badInput() async throws {
        let missing = temporaryPath("missing.db")
        let noDatabase = try await NavwatchProcess.run(["diff", missing, missing])
        #expect(noDatabase.status == 2)
        #expect(noDatabase.stderr == "navwatch: no crawl database at \(missing)\n")
        let half = try await NavwatchProcess.run(["diff", missing, missing, "--old-screenshots", "/tmp"])
        #expect(half.status == 2)
        #expect(half.stderr.contains("--old-screenshots and --new-screenshots go together"))
        let negative = try await NavwatchProcess.run(["diff", missing, missing, "--slower-by-ms=-1"])
        #expect(negative.status == 2)
        #expect(negative.stderr == "navwatch: --slower-by-ms must be from 0 to 3600000 milliseconds (an hour)\n")
    }
}
