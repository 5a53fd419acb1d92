import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatchPostgres
import Synchronization
import Testing

/// A binary tree of 40 pages unless told (`/g/N` links to `/g/2N+1` and
/// `/g/2N+2`), each answered after 150 ms so that a crawl takes long enough
/// to share. With `neighbours`, each page also links to that many pages after
/// it, upwards from even pages and downwards from odd ones: workers then
/// store the same new links at once, in opposite orders.
private final class TreeSite: Sendable {
    let size: Int
    let server: LoopbackServer
    private let hits: HitCounter

    private final class HitCounter: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    init(size: Int = 40, neighbours: Int = 0) async throws {
        let hits = HitCounter()
        self.hits = hits
        self.size = size
        server = try await LoopbackServer.start { request in
            hits.counts.withLock { $0[request.path, default: 0] += 1 }
            guard request.path.hasPrefix("/g/"), let n = Int(request.path.dropFirst(3)), (0..<size).contains(n) else {
                return .html("<title>none</title>", status: 404)
            }
            let next = Array(n + 1..<n + 1 + neighbours)
            let linked = [2 * n + 1, 2 * n + 2] + (n.isMultiple(of: 2) ? next : next.reversed())
            let links = linked.filter { $0 < size }.map { "<a href=\"/g/\($0)\">child</a>" }.joined()
            return .delayed(.milliseconds(150), .html("<!doctype html><title>Page \(n)</title>\(links)"))
        }
    }

    var seed: String { server.url("/g/0").absoluteString }
    var pages: [String] { (0..<size).map { server.url("/g/\($0)").absoluteString } }
    /// Requests per page path, robots.txt and 404s left out.
    var pageHits: [String: Int] { hits.counts.withLock { $0.filter { $0.key.hasPrefix("/g/") } } }
}

/// A fresh database on the test server for one test, dropped afterwards.
private func withCrawlDatabase(_ body: (String) async throws -> Void) async throws {
    let admin = try #require(ProcessInfo.processInfo.environment["NAVWATCH_TEST_POSTGRES"],
                             "NAVWATCH_TEST_POSTGRES is not set: run the tests with Scripts/test, which starts a server")
    let database = try await PostgresScratchDatabase.create(admin: admin)
    do {
        try await body(database)
    } catch {
        try await PostgresScratchDatabase.drop(database, admin: admin)
        throw error
    }
    try await PostgresScratchDatabase.drop(database, admin: admin)
}

/// A PostgreSQL server of the test's own (`Scripts/postgres.sh`), which it
/// may restart without disturbing other tests; stopped and removed afterwards.
private func withRestartableServer(_ body: (RestartableServer) async throws -> Void) async throws {
    let server = try await RestartableServer()
    do {
        try await body(server)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

private final class RestartableServer: Sendable {
    /// Runs in bash with Scripts/postgres.sh as $0: prints the server's
    /// address, restarts it on SIGUSR1 (then prints `restarted`), stops on
    /// SIGTERM or when the test process is gone.
    private static let script = """
        source "$0"
        postgres_start
        trap postgres_stop EXIT
        trap 'exit 0' TERM
        trap 'postgres_restart 3 && echo restarted' USR1
        echo "$POSTGRES_URL"
        while kill -0 "$PPID" 2>/dev/null; do sleep 0.2; done
        """
    private static let postgresScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path

    private let shell: NavwatchProcess
    /// The address of its `postgres` database.
    let url: String

    init() async throws {
        // The test process blocks most signals, and a child inherits its mask:
        // unblocked before bash starts, so that its traps see USR1 and TERM.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "os.execv('/bin/bash', ['bash', '-c'] + sys.argv[1:])"
        shell = try NavwatchProcess(["-c", unblocked, Self.script, Self.postgresScript], executable: "/usr/bin/python3")
        try await shell.waitForOutput("the server's address") { !$0.isEmpty }
        url = try #require(shell.output.first { $0.hasPrefix("postgres://") }, "\(shell.output)")
    }

    /// Stops the server with a fast shutdown, which ends every connection, and
    /// starts it again three seconds later on the same port; returns once it runs.
    func restart() async throws {
        let restarts = shell.output.filter { $0 == "restarted" }.count
        shell.signal(SIGUSR1)
        try await shell.waitForOutput("restarted") { $0.filter { $0 == "restarted" }.count > restarts }
        #expect(shell.output.filter { $0 == "restarted" }.count > restarts, "the restart failed: \(shell.output)")
    }

    func stop() async throws {
        shell.signal(SIGTERM)
        let result = try await shell.finish(within: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
    }
}

private func status(_ db: String) async throws -> [String: Any] {
    let result = try await NavwatchProcess.run(["status", "--db", db, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.joined().utf8)) as? [String: Any])
}

@Suite("navwatch crawl workers sharing PostgreSQL", .serialized)
struct WorkerTests {
    @Test("three workers crawl one site together: every page loaded and reported exactly once")
    func threeWorkers() async throws {
        // 100 pages, each answered after 150 ms: the crawl lasts long enough for both
        // workers to join. With 40, on a busy machine one worker's WebKit once
        // started after the last page had been leased.
        let site = try await TreeSite(size: 100)
        defer { Task { await site.server.shutdown() } }
        try await withCrawlDatabase { db in
            let starter = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "1", site.seed])
            try await starter.waitForOutput { !$0.isEmpty }  // the crawl exists: the others can join it
            let workers = try (0..<2).map { _ in try NavwatchProcess(["crawl", "--db", db, "--worker", "--concurrency", "1"]) }
            var printed: [String] = []
            for process in [starter] + workers {
                let result = try await process.finish()
                #expect(result.status == 0, "\(result.stderr)")
                printed += try reportURLs(result.stdout)
            }
            #expect(printed.sorted() == site.pages.sorted())
            #expect(site.pageHits == Dictionary(uniqueKeysWithValues: (0..<site.size).map { ("/g/\($0)", 1) }))
            let counts = try await status(db)
            #expect(counts["loaded"] as? Int == site.size)
            #expect(counts["leased"] as? Int == 0 && counts["queued"] as? Int == 0)
            let shares = try #require(counts["workers"] as? [[String: Any]])
            #expect(shares.count == 3 && shares.allSatisfy { ($0["loaded"] as? Int ?? 0) >= 1 }, "\(shares)")
        }
    }

    @Test("workers with --extract: every page's data stored once, whichever worker loaded it")
    func workersExtract() async throws {
        let site = try await TreeSite()
        defer { Task { await site.server.shutdown() } }
        let js = temporaryPath("extract.js")
        try "return {title: document.title, links: document.links.length};".write(toFile: js, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: js) }
        try await withCrawlDatabase { db in
            // 100 ms between two pages of the host, for every worker: the crawl
            // lasts long enough (over 4 s) for the second worker to start and join.
            let starter = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "1", "--delay", "100", "--extract", js,
                                               site.seed])
            try await starter.waitForOutput { !$0.isEmpty }
            let worker = try NavwatchProcess(["crawl", "--db", db, "--worker", "--concurrency", "1", "--extract", js])
            var loadedBy: [Int] = []
            for process in [starter, worker] {
                let result = try await process.finish()
                #expect(result.status == 0, "\(result.stderr)")
                loadedBy.append(result.stdout.count)
            }
            #expect(loadedBy.allSatisfy { $0 >= 1 } && loadedBy.reduce(0, +) == site.size, "\(loadedBy)")
            let export = try await NavwatchProcess.run(["export", "--db", db])
            var data: [String: String] = [:]
            for line in export.stdout {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let report = try #require(object["data"] as? [String: Any], "no data: \(line)")
                data[try #require(object["url"] as? String)] = "\(report["title"] ?? "") \(report["links"] ?? "")"
            }
            #expect(data == Dictionary(uniqueKeysWithValues: (0..<site.size).map { n in
                (site.server.url("/g/\(n)").absoluteString, "Page \(n) \([2 * n + 1, 2 * n + 2].filter { $0 < site.size }.count)")
            }))
        }
    }

    @Test("a worker killed with kill -9 loses nothing: its pages go back when its lease runs out")
    func killedWorker() async throws {
        let site = try await TreeSite()
        defer { Task { await site.server.shutdown() } }
        try await withCrawlDatabase { db in
            let starter = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "1", "--lease", "2", site.seed])
            try await starter.waitForOutput { !$0.isEmpty }
            let victim = try NavwatchProcess(["crawl", "--db", db, "--worker", "--concurrency", "2", "--lease", "2"])
            try await victim.waitForOutput { $0.count >= 2 }
            victim.signal(SIGKILL)
            let killed = try await victim.finish()
            #expect(killed.status == 9 || killed.status == 137)
            let finished = try await starter.finish()
            #expect(finished.status == 0, "\(finished.stderr)")

            let export = try await NavwatchProcess.run(["export", "--db", db])
            let stored = try reportURLs(export.stdout)
            #expect(stored.sorted() == site.pages.sorted(), "every page reported exactly once")
            #expect(Set(try reportURLs(killed.stdout) + reportURLs(finished.stdout)).isSubset(of: Set(stored)))
            let counts = try await status(db)
            #expect(counts["leased"] as? Int == 0 && counts["queued"] as? Int == 0)
        }
    }

    @Test("--max-pages is exact across workers: no page more is even requested")
    func maxPagesAcrossWorkers() async throws {
        let site = try await TreeSite()
        defer { Task { await site.server.shutdown() } }
        try await withCrawlDatabase { db in
            let starter = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "2", "--max-pages", "7", site.seed])
            try await starter.waitForOutput { !$0.isEmpty }
            let workers = try (0..<2).map { _ in try NavwatchProcess(["crawl", "--db", db, "--worker", "--concurrency", "2"]) }
            for process in [starter] + workers {
                let result = try await process.finish()
                #expect(result.status == 0, "\(result.stderr)")
            }
            let counts = try await status(db)
            #expect(counts["loaded"] as? Int == 7)
            #expect(site.pageHits.values.reduce(0, +) == 7, "\(site.pageHits)")
            #expect(counts["leased"] as? Int == 0 && counts["queued"] as? Int == 0)
        }
    }

    @Test("PostgreSQL restarted twice in the middle of a crawl: every worker exits, and every page is stored exactly once")
    func serverRestart() async throws {
        let site = try await TreeSite(size: 120, neighbours: 8)
        defer { Task { await site.server.shutdown() } }
        try await withRestartableServer { server in
            let db = server.url
            let starter = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "2", site.seed])
            try await starter.waitForOutput { !$0.isEmpty }
            let processes = try [starter] + (0..<2).map { _ in
                try NavwatchProcess(["crawl", "--db", db, "--worker", "--concurrency", "2"])
            }
            var results: [NavwatchProcess.Result] = []
            do {
                // A worker that cannot reach the server when it starts exits, as
                // designed: on a busy machine one was still starting at the first
                // restart. So every worker has stored a page before it.
                for process in processes.dropFirst() { try await process.waitForOutput("its first page") { !$0.isEmpty } }
                // Twice: once while the starter has most pages, and once when
                // every worker has taken up the crawl again after the first.
                var pages = site.size / 10
                for _ in 0..<2 {
                    try await starter.waitForOutput("\(pages) pages") { [pages] in $0.count >= pages }
                    try await server.restart()
                    pages = starter.output.count + 6
                }
                // Past a lost connection, every await of a worker's must still end.
                for process in processes { results.append(try await process.finish(within: .seconds(60))) }
            } catch {
                for process in processes { process.signal(SIGKILL) }
                throw error
            }
            var printed: [String] = []
            for result in results {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("trying again"), "this worker missed the restart: \(result.stderr)")
                #expect(!result.stderr.contains("deadlock"), "\(result.stderr)")
                printed += try reportURLs(result.stdout)
            }
            let export = try await NavwatchProcess.run(["export", "--db", db])
            let stored = try reportURLs(export.stdout)
            #expect(stored.sorted() == site.pages.sorted(), "every page stored exactly once")
            // A report whose commit the restart hid is stored, but printed by no one.
            #expect(Set(printed).count == printed.count && Set(printed).isSubset(of: Set(stored)))
            let counts = try await status(db)
            #expect(counts["leased"] as? Int == 0 && counts["queued"] as? Int == 0)
        }
    }

    @Test("status prints the totals and one line per worker")
    func statusText() async throws {
        let site = try await TreeSite()
        defer { Task { await site.server.shutdown() } }
        try await withCrawlDatabase { db in
            let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--concurrency", "2", "--max-pages", "3", site.seed])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let result = try await NavwatchProcess.run(["status", "--db", db])
            #expect(result.status == 0)
            #expect(result.stdout.count == 3)
            #expect(result.stdout.first == "done 7 (3 pages loaded, 0 checked, 4 skipped, 0 blocked, 0 failed), leased 0, queued 0")
            #expect(result.stdout.dropFirst().first?.hasSuffix("  leased  loaded checked  failed") == true)
            #expect(result.stdout.last?.hasSuffix("       0       3       0       0") == true, "\(result.stdout)")
        }
    }

    @Test("bad worker and database input: one line, exit 2")
    func badInput() async throws {
        try await withCrawlDatabase { db in
            let empty = try await NavwatchProcess.run(["crawl", "--db", db, "--worker"])
            #expect(empty.status == 2)
            #expect(empty.stderr == "navwatch: \(db) holds no crawl to join: start one with navwatch crawl URL --db \(db)\n")
        }
        let sqlite = try await NavwatchProcess.run(["crawl", "--db", "/tmp/\(UUID().uuidString).db", "--worker"])
        #expect(sqlite.status == 2)
        #expect(sqlite.stderr == "navwatch: --worker needs a shared database: --db postgres://...\n")
        let refused = try await NavwatchProcess.run(["status", "--db", "postgres://nobody@127.0.0.1:1/none"])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("navwatch: cannot use postgres://nobody@127.0.0.1:1/none: "), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let seeds = try await NavwatchProcess.run(["crawl", "--db", "postgres://x@127.0.0.1/x", "--worker", "http://a.test/"])
        #expect(seeds.stderr == "navwatch: --worker takes no seed URLs: the crawl has its own\n")
    }

    @Test("a password in a postgres:// --db never appears in what navwatch prints: it shows as ***")
    func passwordRedacted() async throws {
        let site = try await TreeSite()
        defer { Task { await site.server.shutdown() } }
        try await withCrawlDatabase { db in
            // The test server trusts loopback connections: the password is never checked, only carried.
            var components = try #require(URLComponents(string: db))
            components.password = "s3cret"
            let withPassword = try #require(components.string)
            components.percentEncodedPassword = "***"
            let shown = try #require(components.string)
            let crawl = try await NavwatchProcess.run(["crawl", "--db", withPassword, "--max-pages", "2", site.seed])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let again = try await NavwatchProcess.run(["crawl", "--db", withPassword, site.seed])
            #expect(again.status == 2)
            #expect(again.stderr == "navwatch: \(shown) already holds a crawl: add --worker to join it, or choose another --db\n")
            let status = try await NavwatchProcess.run(["status", "--db", withPassword])
            #expect(status.status == 0)
            let report = temporaryPath("report.html")
            defer { try? FileManager.default.removeItem(atPath: report) }
            let html = try await NavwatchProcess.run(["report", "--db", withPassword, "--out", report])
            #expect(html.status == 0)
            let written = try String(contentsOfFile: report, encoding: .utf8)
            for output in [crawl.stdout.joined() + crawl.stderr, again.stderr, status.stdout.joined() + status.stderr,
                           html.stderr, written] {
                #expect(!output.contains("s3cret"))
            }
            #expect(written.contains(shown))
        }
    }
}
