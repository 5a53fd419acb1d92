import Foundation
import Testing

@Suite("navwatch crawl and links --config: the policy file")
struct PolicyTests {
    private static let policy = #"""
        ignore = ["/slow$"]

        [[accept]]
        pattern = "/always-missing$"
        statuses = "404"

        [[remap]]
        pattern = "/removed$"
        replacement = "/b"
        """#

    @Test("ignored URLs are not loaded, accepted statuses are not broken, remapped links lead elsewhere, warnings do not fail")
    func policy() async throws {
        let site = try await ChangingSite.start()
        defer { Task { await site.shutdown() } }
        let directory = temporaryPath("policy")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/navwatch.toml", db = directory + "/crawl.db"
        try Self.policy.write(toFile: file, atomically: true, encoding: .utf8)

        // --check-external checks links --exclude leaves out, never ignored ones.
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--config", file, "--fail-on", "broken", "--check-external",
                                                   "--exclude", "/pic$", site.base + "/"])
        #expect(crawl.status == 1)  // /fixed is broken
        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "jsonl"])
        let reports = try export.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let outcomes = Dictionary(uniqueKeysWithValues: reports.map { report in
            (site.relative(report["url"] as! String),
             ["outcome", "skip_reason", "checked_with"].compactMap { report[$0] as? String }.joined(separator: " "))
        })
        #expect(outcomes == ["A/": "ok", "A/a": "ok", "A/b": "ok", "A/c": "ok", "A/redirect": "ok", "A/pic": "ok HEAD",
                             "A/slow": "skipped ignored", "A/fixed": "http-error", "A/always-missing": "http-error",
                             "A/will-break": "ok"])

        let links = try await NavwatchProcess.run(["links", "--db", db, "--broken", "--config", file])
        #expect(links.stdout.map(site.relative) == ["✘ A/fixed  404 Not Found", #"    linked from A/a  "Fixed""#,
                                                    "1 broken target, 1 link to them on 1 page"])
        // Without the policy, the accepted 404 is broken.
        let plain = try await NavwatchProcess.run(["links", "--db", db, "--broken"])
        #expect(plain.stdout.last == "2 broken targets, 2 links to them on 1 page")

        try (Self.policy + "\n[severity]\nbroken-link = \"warning\"\n").write(toFile: file, atomically: true, encoding: .utf8)
        let warned = try await NavwatchProcess.run(["crawl", "--db", directory + "/warned.db", "--config", file, "--fail-on", "broken",
                                                    site.base + "/"])
        #expect(warned.status == 0)
    }

    @Test("a missing or bad policy file stops the crawl before any page, with one line and status 2")
    func badFile() async throws {
        let db = temporaryPath("policy.db"), file = temporaryPath("navwatch.toml")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let missing = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--config", file])
        #expect(missing.status == 2)
        #expect(missing.stderr == "navwatch: no policy file at \(file)\n")
        try "[politeness]\n\ndelay_ms = \"fast\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--config", file])
        #expect(bad.status == 2)
        #expect(bad.stderr == "navwatch: \(file): line 3: [politeness]: delay_ms must be a whole number of 0 or more\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test("the policy file's [network] profile is refused with --fast and --render never, as --network is")
    func networkWithoutRendering() async throws {
        let db = temporaryPath("policy.db"), file = temporaryPath("navwatch.toml")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "[network]\nprofile = \"3G\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        for mode in [["--fast"], ["--render", "never"]] {
            let crawl = try await NavwatchProcess.run(["crawl", "--demo", "--db", db, "--config", file] + mode)
            #expect(crawl.status == 2)
            #expect(crawl.stderr == "navwatch: [network] profile of the policy file shapes rendered pages: it cannot be combined with "
                        + mode.joined(separator: " ") + "\n")
            #expect(!FileManager.default.fileExists(atPath: db))
        }
    }
}
