import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatchPostgres
import Synchronization
import Testing

/// A binary tree of 40 pages (`/g/N` links to `/g/2N+1` and `/g/2N+2`), each
/// answered after 150 ms so that a crawl takes long enough to share.
private final class TreeSite: Sendable {
    static let size = 40
    let server: LoopbackServer
    private let hits: HitCounter

    private final class HitCounter: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    init() async throws {
        let hits = HitCounter()
        self.hits = hits
        server = try await LoopbackServer.start { request in
            hits.counts.withLock { $0[request.path, default: 0] += 1 }
            guard request.path.hasPrefix("/g/"), let n = Int(request.path.dropFirst(3)), (0..<TreeSite.size).contains(n) else {
                return .html("<title>none</title>", status: 404)
            }
            let links = [2 * n + 1, 2 * n + 2].filter { $0 < TreeSite.size }.map { "<a href=\"/g/\($0)\">child</a>" }.joined()
            return .delayed(.milliseconds(150), .html("<!doctype html><title>Page \(n)</title>\(links)"))
        }
    }

    var seed: String { server.url("/g/0").absoluteString }
    var pages: [String] { (0..<Self.size).map { server.url("/g/\($0)").absoluteString } }
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

private func status(_ db: String) async throws -> [String: Any] {
    let result = try await NavwatchProcess.run(["status", "--db", db, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.joined().utf8)) as? [String: Any])
}

@Suite("navwatch crawl workers sharing PostgreSQL", .serialized)
struct WorkerTests {
    @Test("three workers crawl one site together: every page loaded and reported exactly once")
    func threeWorkers() async throws {
        let site = try await TreeSite()
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
            #expect(site.pageHits == Dictionary(uniqueKeysWithValues: (0..<TreeSite.size).map { ("/g/\($0)", 1) }))
            let counts = try await status(db)
            #expect(counts["loaded"] as? Int == TreeSite.size)
            #expect(counts["leased"] as? Int == 0 && counts["queued"] as? Int == 0)
            let shares = try #require(counts["workers"] as? [[String: Any]])
            #expect(shares.count == 3 && shares.allSatisfy { ($0["loaded"] as? Int ?? 0) >= 1 }, "\(shares)")
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
            #expect(result.stdout.first == "done 7 (loaded 3, failed 0, skipped 4), leased 0, queued 0")
            #expect(result.stdout.dropFirst().first?.hasPrefix("worker") == true)
            #expect(result.stdout.last?.hasSuffix("       0       3       0") == true, "\(result.stdout)")
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
