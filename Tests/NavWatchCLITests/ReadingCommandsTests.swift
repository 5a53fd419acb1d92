import Foundation
import NavWatchCrawler
import NavWatchTestSupport
import Testing

@Suite("Reading commands: crawls opened read-only, other files refused and left as they were")
struct ReadingCommandsTests {
    /// A file of each kind that holds no crawl, with the line navwatch refuses it with.
    private static func files(in directory: String) async throws -> [(path: String, line: String)] {
        let empty = directory + "/empty.db", text = directory + "/notes.txt", foreign = directory + "/foreign.db"
        _ = FileManager.default.createFile(atPath: empty, contents: nil)
        try "not a database\n".write(toFile: text, atomically: true, encoding: .utf8)
        try await python("import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('CREATE TABLE notes (body TEXT)')\n"
                   + "c.execute(\"INSERT INTO notes VALUES ('mine')\")\nc.commit()\nc.close()", foreign)
        return [(empty, "\(empty) is empty, not a crawl database"),
                (text, "\(text) is not a crawl database: it is not a SQLite file"),
                (foreign, "\(foreign) is not a crawl database: it has no navwatch tables (frontier, reports)")]
    }

    @Test("links, report, export, status, budgets, diff (either file) and crawl --baseline refuse in one line, exit 2, the file unchanged")
    func refused() async throws {
        let (directory, crawl) = try Self.directoryWithCrawl()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let budgets = directory + "/budgets.toml"
        try "[[budget]]\nload_ms = 1000\n".write(toFile: budgets, atomically: true, encoding: .utf8)
        for (file, line) in try await Self.files(in: directory) {
            let before = try #require(Self.contents(file))
            let commands = [
                ["links", "--db", file], ["report", "--db", file, "--out", directory + "/report.html"], ["export", "--db", file],
                ["status", "--db", file], ["budgets", "--db", file, "--budgets", budgets], ["diff", file, crawl], ["diff", crawl, file],
                ["crawl", "--db", directory + "/new.db", "--baseline", file, "http://127.0.0.1:1/"],
            ]
            for arguments in commands {
                let result = try await NavwatchProcess.run(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stderr == "navwatch: \(line)\n", "\(arguments)")
                #expect(result.stdout.isEmpty, "\(arguments)")
                #expect(Self.contents(file) == before, "\(arguments) changed \(file)")
            }
            let beside = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(beside == ["budgets.toml", "crawl.db", "empty.db", "foreign.db", "notes.txt"], "\(beside)")
        }
    }

    @Test("a crawl is read without a byte of it or a file beside it changing")
    func crawlUnchanged() async throws {
        let (directory, crawl) = try Self.directoryWithCrawl()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let before = try #require(Self.contents(crawl))
        let status = try await NavwatchProcess.run(["status", "--db", crawl])
        #expect(status.status == 0)
        #expect(status.stdout == ["done 0 (0 pages loaded, 0 checked, 0 skipped, 0 blocked, 0 failed), leased 0, queued 0"])
        let diff = try await NavwatchProcess.run(["diff", crawl, crawl])
        #expect(diff.status == 0)
        #expect(Self.contents(crawl) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["crawl.db"])
    }

    /// A new directory with `crawl.db` in it, an empty crawl: navwatch's tables, no pages.
    private static func directoryWithCrawl() throws -> (directory: String, crawl: String) {
        let directory = temporaryPath("reading")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try SQLiteCrawlStore(path: directory + "/crawl.db")
        return (directory, directory + "/crawl.db")
    }

    /// The bytes of the file at `path`; nil when it cannot be read.
    private static func contents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Runs a Python script with `argument` to its end, within 30 s. (`NavwatchProcess` waits
    /// for its exit as Foundation's `Process` alone may never see it beside a WebKit process.)
    private static func python(_ script: String, _ argument: String) async throws {
        let result = try await NavwatchProcess(["python3", "-c", script, argument], executable: "/usr/bin/env")
            .finish(within: .seconds(30))
        guard result.status == 0 else { throw HelperFailure("python3 exited with \(result.status): \(result.stderr)") }
    }
}

private struct HelperFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
