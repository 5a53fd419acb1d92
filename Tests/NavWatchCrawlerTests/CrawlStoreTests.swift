import Foundation
import GRDB
import Logging
@testable import NavWatchCrawler
@testable import NavWatchPostgres
import NavWatchTestSupport
import PostgresNIO
import Synchronization
import Testing

/// The two stores under one contract. PostgreSQL runs against the server
/// Scripts/test starts (NAVWATCH_TEST_POSTGRES); each test gets a database of its own.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// Opens `workers` stores on one fresh crawl: for PostgreSQL each has its
    /// own connection, as workers on different machines would, and logs to `logger`.
    func withStores(_ workers: Int = 1, logger: Logger = Logger(label: "navwatch.postgres"),
                    _ body: ([any CrawlStore]) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).db").path
            defer { removeSQLiteDatabase(atPath: path) }
            let store = try SQLiteCrawlStore(path: path)
            try await body(Array(repeating: store, count: workers))
        case .postgres:
            let admin = try #require(ProcessInfo.processInfo.environment["NAVWATCH_TEST_POSTGRES"],
                                     "NAVWATCH_TEST_POSTGRES is not set: run the tests with Scripts/test, which starts a server")
            let address = try await PostgresScratchDatabase.create(admin: admin)
            var stores: [PostgresCrawlStore] = []
            do {
                for _ in 0..<workers {
                    stores.append(try await PostgresCrawlStore(address: try PostgresAddress(address), logger: logger))
                }
                try await body(stores)
            } catch {
                for store in stores { await store.close() }
                try await PostgresScratchDatabase.drop(address, admin: admin)
                throw error
            }
            for store in stores { await store.close() }
            try await PostgresScratchDatabase.drop(address, admin: admin)
        }
    }
}

private func entry(_ path: String, depth: Int = 0, host: String = "a.test") -> FrontierEntry {
    FrontierEntry(url: "http://\(host)\(path)", depth: depth, parent: depth == 0 ? nil : "http://\(host)/")
}

private func request(_ worker: String, lease: TimeInterval = 30, hostDelay: TimeInterval = 0, maxPages: Int? = nil,
                     hostConcurrency: Int? = nil) -> LeaseRequest {
    let now = Date()
    return LeaseRequest(worker: worker, now: now, until: now.addingTimeInterval(lease), hostDelay: hostDelay, maxPages: maxPages,
                        hostConcurrency: hostConcurrency)
}

private func loaded(_ entry: FrontierEntry) -> PageLoadReport {
    var report = PageLoadReport(url: entry.url, depth: entry.depth, parent: entry.parent, outcome: .ok)
    report.attempts = entry.attempts + 1
    return report
}

/// Runs `scenario` on fresh stores until a run of it is not stalled, at most three times.
///
/// A scenario whose assertions hold only while a lease or a pause lasts
/// proves nothing once a loaded machine has held its calls up past that time
/// (a full test run starts many web processes on two cores at once). The
/// scenario measures that itself and returns false, without recording an
/// issue, only when the time it depends on had passed by its client's clock.
private func unlessStalled(_ kind: StoreKind, workers: Int,
                           _ scenario: ([any CrawlStore]) async throws -> Bool) async throws {
    for _ in 0..<3 {
        var proved = false
        try await kind.withStores(workers) { proved = try await scenario($0) }
        if proved { return }
    }
    Issue.record("three runs were each held up past the time they depend on")
}

private func leasedURL(_ outcome: LeaseOutcome) -> String? {
    if case .leased(let entry) = outcome { return entry.url }
    return nil
}

@Suite("Crawl stores: SQLite and PostgreSQL keep the same contract")
struct CrawlStoreTests {
    @Test("enqueue adds each URL once; seeds come back in the order added", arguments: StoreKind.allCases)
    func enqueue(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            let added = try await store.enqueue([entry("/b"), entry("/a"), entry("/b"), entry("/c", depth: 1)])
            #expect(added.map(\.url) == ["http://a.test/b", "http://a.test/a", "http://a.test/c"])
            #expect(try await store.enqueue([entry("/a")]).isEmpty)
            #expect(try await store.seeds() == ["http://a.test/b", "http://a.test/a"])
            #expect(try await store.counts().queued == 3)
        }
    }

    @Test("a report's requests are stored beside it and read back whole; its JSON line stays without them",
          arguments: StoreKind.allCases)
    func requestsBesideReports(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            _ = try await store.enqueue([entry("/"), entry("/bare")])
            var report = loaded(entry("/"))
            let json = #"[{"method":"GET","pending":false,"request_headers":[{"name":"Accept","value":"*/*"}],"#
                + #""response_headers":[],"start_ms":1.5,"status":200,"status_text":"OK","timings":{"blocked":0,"#
                + #""connect":-1,"dns":-1,"receive":1,"send":0,"ssl":-1,"wait":2},"transfer_bytes":300,"type":"document","#
                + #""url":"http://a.test/"}]"#
            report.requests = try PageLoadReport.decoder.decode([RequestRecord].self, from: Data(json.utf8))
            for (path, report) in [("/", report), ("/bare", loaded(entry("/bare")))] {
                guard case .leased(let leased) = try await store.lease(request("w")) else { Issue.record("nothing to lease"); return }
                #expect(leased.url == "http://a.test" + path)
                _ = try await store.complete(leased, worker: "w", report: report, aliases: [], discovered: [], skipped: [], links: [])
            }
            let stored = try await store.allReports()
            #expect(stored.map(\.requests) == [report.requests, []])
            #expect(!stored[0].jsonLine.contains("request_headers"))
        }
    }

    @Test("reports are read a batch at a time, in the order stored, with nothing left out or repeated",
          arguments: StoreKind.allCases)
    func readInBatches(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            let paths = (1...7).map { "/p\($0)" }
            _ = try await store.enqueue(paths.map { entry($0) })
            for path in paths {
                guard case .leased(let leased) = try await store.lease(request("w")) else { Issue.record("nothing to lease"); return }
                _ = try await store.complete(leased, worker: "w", report: loaded(leased), aliases: [], discovered: [],
                                             skipped: [.skipped(entry("/skipped" + path, depth: 1), .scope)], links: [])
            }
            let first = try await store.reports(after: 0, limit: 3, includingRequests: false)
            let next = try await store.reports(after: try #require(first.last).position, limit: 100, includingRequests: false)
            #expect(first.count == 3 && next.count == 11)
            #expect(zip(first + next, (first + next).dropFirst()).allSatisfy { $0.position < $1.position })
            var read: [String] = []
            for try await report in store.storedReports(includingRequests: true, batchSize: 3) { read.append(report.url) }
            #expect(read == (first + next).map(\.report.url))
            #expect(read.filter { !$0.contains("skipped") } == paths.map { "http://a.test" + $0 })
            #expect(try await store.allReports().map(\.url) == read)
        }
    }

    @Test("leases go shallowest and oldest first, and never twice while a lease lasts", arguments: StoreKind.allCases)
    func leaseOrder(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { stores in
            _ = try await stores[0].enqueue([entry("/deep", depth: 2), entry("/one", depth: 1), entry("/two", depth: 1), entry("/")])
            var order: [String] = []
            for index in 0..<4 {
                order.append(try #require(leasedURL(try await stores[index % 2].lease(request("w\(index % 2)")))))
            }
            #expect(order == ["http://a.test/", "http://a.test/one", "http://a.test/two", "http://a.test/deep"])
            // Everything is leased: the next ask waits for a lease to end (its expiry).
            guard case .wait(let until?) = try await stores[1].lease(request("w1")) else {
                Issue.record("expected to wait for a lease to expire")
                return
            }
            #expect(until.timeIntervalSinceNow > 20 && until.timeIntervalSinceNow <= 31)
        }
    }

    @Test("workers leasing at once get every URL exactly once", arguments: StoreKind.allCases)
    func concurrentLeases(_ kind: StoreKind) async throws {
        try await kind.withStores(4) { stores in
            _ = try await stores[0].enqueue((0..<40).map { entry("/p\($0)") })
            let taken = try await withThrowingTaskGroup(of: [String].self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        var urls: [String] = []
                        while case .leased(let leased) = try await store.lease(request("w\(index)")) {
                            urls.append(leased.url)
                            _ = try await store.complete(leased, worker: "w\(index)", report: loaded(leased), aliases: [],
                                                         discovered: [], skipped: [], links: [])
                        }
                        return urls
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(taken.count == 40)
            #expect(Set(taken) == Set((0..<40).map { "http://a.test/p\($0)" }))
            #expect(try await stores[0].lease(request("w0")) == .finished)
            let counts = try await stores[0].counts()
            #expect(counts.loaded == 40 && counts.leased == 0 && counts.queued == 0)
            #expect(counts.workers.reduce(0) { $0 + $1.loaded } == 40)
        }
    }

    @Test("an expired lease goes to the next worker; the report is stored once", arguments: StoreKind.allCases)
    func expiredLease(_ kind: StoreKind) async throws {
        try await unlessStalled(kind, workers: 2) { stores in
            _ = try await stores[0].enqueue([entry("/")])
            let started = Date()
            let first = try #require(leasedURL(try await stores[0].lease(request("dead", lease: 6))))
            let outcome = try await stores[1].lease(request("alive"))
            // The lease began after `started`, so it cannot have run out before 6 s had passed here.
            guard Date().timeIntervalSince(started) < 6 else { return false }
            guard case .wait = outcome else {
                Issue.record("a live lease was handed out again: \(outcome)")
                return true
            }
            try await Task.sleep(for: .milliseconds(6200))
            guard case .leased(let again) = try await stores[1].lease(request("alive")) else {
                Issue.record("the expired lease did not come back")
                return true
            }
            #expect(again.url == first)
            #expect(try await stores[1].complete(again, worker: "alive", report: loaded(again), aliases: [],
                                                 discovered: [], skipped: [], links: []).count == 1)
            // The worker thought dead finishes after all: nothing is stored twice.
            #expect(try await stores[0].complete(again, worker: "dead", report: loaded(again), aliases: [],
                                                 discovered: [], skipped: [], links: []).isEmpty)
            #expect(try await stores[0].allReports().map(\.url) == [first])
            return true
        }
    }

    @Test("renewing keeps a lease past its first expiry", arguments: StoreKind.allCases)
    func renew(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { stores in
            _ = try await stores[0].enqueue([entry("/")])
            let url = try #require(leasedURL(try await stores[0].lease(request("w0", lease: 2))))
            try await stores[0].renewLeases([url], worker: "w0", until: Date().addingTimeInterval(30))
            try await Task.sleep(for: .milliseconds(2200))
            guard case .wait = try await stores[1].lease(request("w1")) else {
                Issue.record("a renewed lease was handed out again")
                return
            }
        }
    }

    @Test("max pages counts loaded and leased pages across workers", arguments: StoreKind.allCases)
    func maxPages(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { stores in
            _ = try await stores[0].enqueue((0..<5).map { entry("/p\($0)") })
            let a = try #require(try await stores[0].lease(request("w0", maxPages: 2)).leasedEntry)
            let b = try #require(try await stores[1].lease(request("w1", maxPages: 2)).leasedEntry)
            #expect(try await stores[1].lease(request("w1", maxPages: 2)) == .wait(until: nil))
            _ = try await stores[0].complete(a, worker: "w0", report: loaded(a), aliases: [], discovered: [], skipped: [], links: [])
            #expect(try await stores[0].lease(request("w0", maxPages: 2)) == .wait(until: nil))
            // A retried page gives its place back.
            try await stores[1].retry(b, notBefore: Date())
            let c = try #require(try await stores[1].lease(request("w1", maxPages: 2)).leasedEntry)
            _ = try await stores[1].complete(c, worker: "w1", report: loaded(c), aliases: [], discovered: [], skipped: [], links: [])
            #expect(try await stores[0].lease(request("w0", maxPages: 2)) == .finished)
            let skipped = try await stores[0].skipQueued(reason: .maxPages)
            #expect(skipped.count == 3 && skipped.allSatisfy { $0.skipReason == .maxPages })
            #expect(try await stores[1].skipQueued(reason: .maxPages).isEmpty)
            #expect(try await stores[0].counts().loaded == 2)
        }
    }

    @Test("max pages counts the pages loaded before a crawl was opened again, as a resume opens it")
    func maxPagesResumed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let first = try SQLiteCrawlStore(path: path)
        _ = try await first.enqueue((0..<4).map { entry("/p\($0)") })
        let a = try #require(try await first.lease(request("w0", maxPages: 2)).leasedEntry)
        _ = try await first.complete(a, worker: "w0", report: loaded(a), aliases: [], discovered: [], skipped: [], links: [])
        await first.close()

        let resumed = try SQLiteCrawlStore(path: path)
        let b = try #require(try await resumed.lease(request("w0", maxPages: 2)).leasedEntry)
        #expect(try await resumed.lease(request("w1", maxPages: 2)) == .wait(until: nil))
        _ = try await resumed.complete(b, worker: "w0", report: loaded(b), aliases: [], discovered: [], skipped: [], links: [])
        #expect(try await resumed.lease(request("w0", maxPages: 2)) == .finished)
    }

    @Test("a host's pause holds across workers; other hosts are not held up", arguments: StoreKind.allCases)
    func hostDelay(_ kind: StoreKind) async throws {
        try await unlessStalled(kind, workers: 2) { stores in
            _ = try await stores[0].enqueue([entry("/1"), entry("/2"), entry("/1", host: "b.test")])
            let firstLease = Date()
            #expect(leasedURL(try await stores[0].lease(request("w0", hostDelay: 8))) == "http://a.test/1")
            #expect(leasedURL(try await stores[1].lease(request("w1", hostDelay: 8))) == "http://b.test/1")
            let outcome = try await stores[1].lease(request("w1", hostDelay: 8))
            // The pause began after `firstLease`, so it cannot have ended before 8 s had passed here.
            guard Date().timeIntervalSince(firstLease) < 8 else { return false }
            guard case .wait(let until?) = outcome else {
                Issue.record("a.test was asked again within its pause: \(outcome)")
                return true
            }
            // The pause ends 8 s after a.test's lease, however long the leases took.
            #expect(until.timeIntervalSince(firstLease) >= 7.95 && until.timeIntervalSinceNow <= 8)
            try await Task.sleep(for: .seconds(until.timeIntervalSinceNow + 0.05))
            #expect(leasedURL(try await stores[1].lease(request("w1", hostDelay: 8))) == "http://a.test/2")
            return true
        }
    }

    @Test("host concurrency caps the leases of a host across workers; other hosts are not held up", arguments: StoreKind.allCases)
    func hostConcurrency(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { stores in
            _ = try await stores[0].enqueue([entry("/1"), entry("/2"), entry("/3"), entry("/1", host: "b.test")])
            let a1 = try #require(try await stores[0].lease(request("w0", hostConcurrency: 2)).leasedEntry)
            #expect(leasedURL(try await stores[1].lease(request("w1", hostConcurrency: 2))) == "http://a.test/2")
            // a.test has two leased: b.test comes first, then nothing.
            #expect(leasedURL(try await stores[1].lease(request("w1", hostConcurrency: 2))) == "http://b.test/1")
            guard case .wait = try await stores[0].lease(request("w0", hostConcurrency: 2)) else {
                Issue.record("a.test got a third lease")
                return
            }
            _ = try await stores[0].complete(a1, worker: "w0", report: loaded(a1), aliases: [], discovered: [], skipped: [], links: [])
            #expect(leasedURL(try await stores[0].lease(request("w0", hostConcurrency: 2))) == "http://a.test/3")
        }
    }

    @Test("a push back pauses its host for every worker; answers ease it; the statistics say so", arguments: StoreKind.allCases)
    func pushBack(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { stores in
            // a.test pushes back with a Retry-After of 20 s: a pause no stall of a loaded machine outlasts
            // between the push back and the next lease (the leases last 60 s, so the pause is what ends first).
            _ = try await stores[0].enqueue((1...2).map { entry("/\($0)") } + [entry("/1", host: "b.test")])
            _ = try #require(try await stores[0].lease(request("w0", lease: 60)).leasedEntry)
            let pushedAt = Date()
            try await stores[0].pushBack(host: "a.test", retryAfter: 20, at: pushedAt)
            // Paused for the other worker too; b.test is not.
            #expect(leasedURL(try await stores[1].lease(request("w1", lease: 60))) == "http://b.test/1")
            let outcome = try await stores[1].lease(request("w1", lease: 60))
            guard case .wait(let until?) = outcome else {
                Issue.record("a.test was asked again after it pushed back: \(outcome)")
                return
            }
            // 20 s from when the store took the push back (PostgreSQL's clock: between the two calls).
            let answeredAt = Date()
            #expect(until.timeIntervalSince(pushedAt) >= 19.999 && until.timeIntervalSince(answeredAt) <= 20.001)
            #expect(try await stores[1].hostStatistics().map { "\($0.host) \($0.pacing.pushBacks) \($0.pacing.interval)" }
                    == ["a.test 1 20.0"])
            // c.test pushes back without one: a second. After it its leases keep it a second apart; three answers halve it.
            _ = try await stores[0].enqueue((1...3).map { entry("/\($0)", host: "c.test") })
            var done = [try #require(try await stores[0].lease(request("w0")).leasedEntry)]
            try await stores[0].pushBack(host: "c.test", retryAfter: nil, at: Date())
            for _ in 0..<2 {
                try await Task.sleep(for: .seconds(1.05))
                done.append(try #require(try await stores[0].lease(request("w0")).leasedEntry))
            }
            #expect(done.map(\.url) == ["http://c.test/1", "http://c.test/2", "http://c.test/3"])
            for page in done {
                _ = try await stores[0].complete(page, worker: "w0", report: loaded(page), aliases: [], discovered: [], skipped: [],
                                                 links: [])
            }
            #expect(try await stores[1].hostStatistics().map {
                "\($0.host) \($0.requests) \($0.pacing.pushBacks) \($0.pacing.interval) \($0.pacing.widest)"
            } == ["a.test 0 1 20.0 20.0", "c.test 3 1 0.5 1.0"])
        }
    }

    @Test("a retry comes back no sooner than its time", arguments: StoreKind.allCases)
    func retry(_ kind: StoreKind) async throws {
        try await unlessStalled(kind, workers: 1) { stores in
            _ = try await stores[0].enqueue([entry("/")])
            var leased = try #require(try await stores[0].lease(request("w0")).leasedEntry)
            leased.attempts = 1
            let notBefore = Date().addingTimeInterval(8)
            try await stores[0].retry(leased, notBefore: notBefore)
            let outcome = try await stores[0].lease(request("w0"))
            guard notBefore.timeIntervalSinceNow > 0 else { return false }
            guard case .wait(let until?) = outcome else {
                Issue.record("the retry was handed out before its time: \(outcome)")
                return true
            }
            // Its time, however long the calls took.
            #expect(until.timeIntervalSince(notBefore) >= -0.05 && until.timeIntervalSinceNow <= 8)
            try await Task.sleep(for: .seconds(until.timeIntervalSinceNow + 0.1))
            let again = try #require(try await stores[0].lease(request("w0")).leasedEntry)
            #expect(again.attempts == 1)
            return true
        }
    }

    @Test("complete stores the report, aliases, new links, skipped links and the link graph in one go",
          arguments: StoreKind.allCases)
    func complete(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            _ = try await store.enqueue([entry("/")])
            let home = try #require(try await store.lease(request("w0")).leasedEntry)
            let skip = PageLoadReport.skipped(entry("/off", depth: 1, host: "off.test"), .scope)
            var report = loaded(home)
            report.anchors = ["intro", "a b"]
            let links = [
                PageLink(source: home.url, target: "http://a.test/a", href: "/a", text: "A page", rel: "nofollow"),
                PageLink(source: home.url, target: "http://a.test/home", href: "home#intro", fragment: "intro", text: "Intro"),
                PageLink(source: home.url, target: "http://off.test/off", href: "http://off.test/off", text: "", element: "iframe"),
                PageLink(source: home.url, target: "http://a.test/menu", href: "/menu", text: "Menu",
                         learnedFrom: ["http://a.test/s1", "http://a.test/s2"]),
            ]
            let stored = try await store.complete(home, worker: "w0", report: report, aliases: ["http://a.test/home"],
                                                  discovered: [entry("/a", depth: 1), entry("/home", depth: 1)],
                                                  skipped: [skip], links: links)
            #expect(stored.map(\.url) == ["http://a.test/", "http://off.test/off"])
            let graph = try await store.linkGraph()
            #expect(graph.links == links)
            #expect(graph.aliases == ["http://a.test/home": "http://a.test/"])
            #expect(graph.anchors == ["http://a.test/": ["intro", "a b"]])
            let counts = try await store.counts()
            #expect(counts.queued == 1 && counts.reported == 2 && counts.loaded == 1)
            #expect(counts.workers == [WorkerCounts(worker: "w0", leased: 0, loaded: 1, checked: 0, failed: 0)])
            #expect(leasedURL(try await store.lease(request("w0"))) == "http://a.test/a")
        }
    }

    @Test("a page's hundreds of links come back whole and in order", arguments: StoreKind.allCases)
    func manyLinks(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            _ = try await store.enqueue([entry("/")])
            let home = try #require(try await store.lease(request("w0")).leasedEntry)
            // Every column set on some rows and not others; texts empty, short, long and not ASCII;
            // more rows than one statement inserts (`SQLiteCrawlStore.linksPerInsert`).
            let count = 133
            let links = (0..<count).map { index in
                PageLink(source: home.url, target: "http://a.test/p\(index % 7)", href: "/p\(index % 7)",
                         fragment: index % 3 == 0 ? "f\(index)" : nil,
                         text: index % 6 == 0 ? "" : index % 9 == 0 ? "Lien n° \(index) — vérifié ✓ 😀" : "Link \(index)",
                         rel: index % 5 == 0 ? "nofollow" : nil, element: index % 2 == 0 ? "a" : "area",
                         reached: index % 11 == 0 ? .push : nil, routeTitle: index % 22 == 0 ? "Title \(index)" : nil,
                         learnedFrom: index % 13 == 0 ? ["http://a.test/s\(index)"] : nil,
                         resource: index % 4 == 1 ? (index % 8 == 1 ? "src" : "srcset") : nil)
            }
            _ = try await store.complete(home, worker: "w0", report: loaded(home), aliases: [], discovered: [],
                                         skipped: [], links: links)
            #expect(try await store.linkGraph().links == links)
        }
    }

    @Test("the links' table has no index beside its rows' order, in a new crawl and one stored by version 11 of the schema")
    func noIndexOfLinkTargets() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'links' ORDER BY name"
        let old = try DatabaseQueue(path: path)
        try SQLiteCrawlStore.migrator.migrate(old, upTo: "v11: resources pages embed")
        #expect(try await old.read { try String.fetchAll($0, sql: indexes) } == ["links_target"])
        try old.close()

        let store = try SQLiteCrawlStore(path: path)
        _ = try await store.enqueue([entry("/")])
        let migrated = try DatabaseQueue(path: path)
        #expect(try await migrated.read { try String.fetchAll($0, sql: indexes) } == [])
        try migrated.close()

        // PostgreSQL: the index an earlier version made is dropped when a store opens the crawl.
        let admin = try #require(ProcessInfo.processInfo.environment["NAVWATCH_TEST_POSTGRES"],
                                 "NAVWATCH_TEST_POSTGRES is not set: run the tests with Scripts/test, which starts a server")
        let address = try await PostgresScratchDatabase.create(admin: admin)
        let logger = Logger(label: "navwatch.postgres")
        let session = PostgresSession(configuration: try PostgresAddress(address).connectionConfiguration(), logger: logger)
        func postgresIndexes() async throws -> [String] {
            try await session.transaction { connection in
                try await connection.query("SELECT indexname FROM pg_indexes WHERE tablename = 'navwatch_links' ORDER BY 1",
                                           logger: logger).collect().map { try $0.decode(String.self) }
            }
        }
        do {
            try await PostgresCrawlStore(address: try PostgresAddress(address), logger: logger).close()
            _ = try await session.transaction { connection in
                try await connection.query("CREATE INDEX navwatch_links_target ON navwatch_links (target)", logger: logger)
            }
            #expect(try await postgresIndexes() == ["navwatch_links_pkey", "navwatch_links_target"])
            try await PostgresCrawlStore(address: try PostgresAddress(address), logger: logger).close()
            #expect(try await postgresIndexes() == ["navwatch_links_pkey"])
        } catch {
            Issue.record(error)
        }
        await session.close()
        try await PostgresScratchDatabase.drop(address, admin: admin)
    }

    @Test("text fragments of links to loaded pages, by the page's report (redirects followed), and what their match found",
          arguments: StoreKind.allCases)
    func textFragments(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let store = stores[0]
            _ = try await store.enqueue([entry("/")])
            let home = try #require(try await store.lease(request("w0")).leasedEntry)
            let links = [
                PageLink(source: home.url, target: "http://a.test/old", href: "old#:~:text=a&text=b%2C",
                         fragment: ":~:text=a&text=b%2C", text: "Two"),
                PageLink(source: home.url, target: "http://a.test/", href: "#usage:~:text=pre-,c", fragment: "usage:~:text=pre-,c",
                         text: "Here"),
                PageLink(source: home.url, target: "http://a.test/", href: "#usage", fragment: "usage", text: "Id"),
                PageLink(source: home.url, target: "http://a.test/gone", href: "gone#:~:text=d", fragment: ":~:text=d", text: "Gone"),
            ]
            _ = try await store.complete(home, worker: "w0", report: loaded(home), aliases: ["http://a.test/old"],
                                         discovered: [entry("/gone", depth: 1)], skipped: [], links: links)
            let gone = try #require(try await store.lease(request("w0")).leasedEntry)
            var failed = loaded(gone)
            failed.outcome = .httpError
            _ = try await store.complete(gone, worker: "w0", report: failed, aliases: [], discovered: [], skipped: [], links: [])
            var target = TextFragmentTarget()
            target.values = ["a", "b%2C", "pre-,c"]
            #expect(try await store.textFragmentTargets() == ["http://a.test/": target])
            try await store.recordTextFragments(["a": true, "b%2C": false], for: "http://a.test/")
            target.found = ["a": true, "b%2C": false]
            #expect(try await store.textFragmentTargets() == ["http://a.test/": target])
            #expect(target.unmatched == ["pre-,c"])
            #expect(try await store.linkGraph().textFragments == ["http://a.test/": ["a": true, "b%2C": false]])
        }
    }

    @Test("the first start's settings win", arguments: StoreKind.allCases)
    func settings(_ kind: StoreKind) async throws {
        try await kind.withStores(2) { (stores: [any CrawlStore]) async throws in
            #expect(try await stores[0].settings() == nil)
            var first = CrawlConfiguration(seeds: [])
            first.maxPages = 7
            first.scope = .sameHost
            var second = first
            second.maxPages = 99
            #expect(try await stores[0].start(with: CrawlSettings(first)) == CrawlSettings(first))
            #expect(try await stores[1].start(with: CrawlSettings(second)) == CrawlSettings(first))
            #expect(try await stores[1].settings()?.maxPages == 7)
        }
    }

    @Test("a connection the server ended is reopened and the work goes on", arguments: [StoreKind.postgres])
    func reconnect(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            _ = try await stores[0].enqueue([entry("/")])
            let admin = try #require(ProcessInfo.processInfo.environment["NAVWATCH_TEST_POSTGRES"])
            let address = try #require((stores[0] as? PostgresCrawlStore)?.address)
            let ended = try await PostgresScratchDatabase.endConnections(to: address.database, admin: admin)
            #expect(ended == 1)
            let leased = try #require(try await stores[0].lease(request("w0")).leasedEntry)
            #expect(try await stores[0].complete(leased, worker: "w0", report: loaded(leased), aliases: [],
                                                 discovered: [], skipped: [], links: []).count == 1)
        }
    }

    @Test("workers storing the same new links at once, in opposite orders, never deadlock", arguments: [StoreKind.postgres])
    func overlappingLinks(_ kind: StoreKind) async throws {
        let warnings = Warnings()
        try await kind.withStores(2, logger: warnings.logger) { stores in
            let rounds = 10, width = 100
            for round in 0..<rounds {
                _ = try await stores[0].enqueue([entry("/\(round)/a"), entry("/\(round)/b")])
                let pages = [try #require(try await stores[0].lease(request("w0")).leasedEntry),
                             try #require(try await stores[1].lease(request("w1")).leasedEntry)]
                let found = (0..<width).map { entry("/\(round)/link\($0)", depth: 1) }
                let off = (0..<width / 4).map { PageLoadReport.skipped(entry("/\(round)/off\($0)", depth: 1, host: "off.test"), .scope) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, store) in stores.enumerated() {
                        let page = pages[index], reversed = index == 1
                        group.addTask {
                            _ = try await store.complete(page, worker: "w\(index)", report: loaded(page), aliases: [],
                                                         discovered: reversed ? found.reversed() : found,
                                                         skipped: SkippedLinks(reversed ? off.reversed() : off), links: [])
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // PostgreSQL breaks a deadlock by failing one transaction, which the store runs again after a warning.
            #expect(warnings.messages.isEmpty, "\(warnings.messages)")
            let counts = try await stores[0].counts()
            #expect(counts.queued == rounds * width && counts.loaded == 2 * rounds && counts.reported == rounds * (2 + width / 4))
        }
    }

    @Test("a worker joins a running crawl without locking its tables: no deadlock with a worker storing a page",
          arguments: [StoreKind.postgres])
    func joinWhileStoring(_ kind: StoreKind) async throws {
        let warnings = Warnings()
        try await kind.withStores { stores in
            _ = try await stores[0].enqueue([entry("/")])
            let address = try #require((stores[0] as? PostgresCrawlStore)?.address)
            let logger = Logger(label: "navwatch.postgres")
            // What `complete` does, in a transaction kept open meanwhile: the
            // report first, then the page's frontier row.
            let storing = try await PostgresConnection.connect(configuration: try address.connectionConfiguration(), id: 1,
                                                               logger: logger)
            try await storing.query("BEGIN", logger: logger)
            try await storing.query("SELECT pg_advisory_xact_lock(7417200002)", logger: logger)
            try await storing.query("""
                INSERT INTO navwatch_reports (url, outcome, json) VALUES ('http://a.test/', 'ok', '{}')
                """, logger: logger)
            let joining = Task { try await PostgresCrawlStore(address: address, logger: warnings.logger) }
            // Time for the joining worker to wait for the report's lock, if it takes table locks.
            try await Task.sleep(for: .milliseconds(500))
            try await storing.query("UPDATE navwatch_frontier SET state = 'done' WHERE url = 'http://a.test/'", logger: logger)
            try await storing.query("COMMIT", logger: logger)
            try await storing.close()
            let joined = try await withDeadline("the worker to join", within: .seconds(30)) { try await joining.value }
            await joined.close()
            #expect(warnings.messages.isEmpty, "\(warnings.messages)")
        }
    }

    @Test("releasing leases returns them to the queue", arguments: StoreKind.allCases)
    func release(_ kind: StoreKind) async throws {
        try await kind.withStores { stores in
            _ = try await stores[0].enqueue([entry("/")])
            _ = try await stores[0].lease(request("w0"))
            #expect(try await stores[0].counts().leased == 1)
            try await stores[0].releaseLeases()
            #expect(try await stores[0].counts().queued == 1)
            #expect(leasedURL(try await stores[0].lease(request("w1"))) == "http://a.test/")
        }
    }
}

extension LeaseOutcome {
    var leasedEntry: FrontierEntry? {
        if case .leased(let entry) = self { return entry }
        return nil
    }
}

/// The warnings logged to `logger`.
private final class Warnings: Sendable {
    private let logged = Mutex<[String]>([])

    var messages: [String] { logged.withLock { $0 } }

    var logger: Logger {
        Logger(label: "navwatch.postgres") { _ in Handler(warnings: self) }
    }

    private struct Handler: LogHandler {
        let warnings: Warnings
        var metadata: Logger.Metadata = [:]
        var logLevel = Logger.Level.warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            warnings.logged.withLock { $0.append(event.message.description) }
        }
    }
}

@Suite("PostgresSession: one connection that outlives its server's restarts")
struct PostgresSessionTests {
    @Test("a transaction whose connection the server ends midway runs again on a new one; nothing waits for good")
    func endedMidTransaction() async throws {
        let admin = try #require(ProcessInfo.processInfo.environment["NAVWATCH_TEST_POSTGRES"],
                                 "NAVWATCH_TEST_POSTGRES is not set: run the tests with Scripts/test, which starts a server")
        let address = try await PostgresScratchDatabase.create(admin: admin)
        let database = try PostgresAddress(address).database
        let session = PostgresSession(configuration: try PostgresAddress(address).connectionConfiguration(),
                                      logger: Logger(label: "navwatch.postgres"), retryLimit: .seconds(20))
        let attempts = Mutex(0)
        // PostgresNIO never answers a query sent after its connection closed:
        // the first attempt's last query would wait for good.
        let answer = try await withDeadline("the transaction to end", within: .seconds(30)) {
            try await session.transaction { connection in
                if attempts.withLock({ $0 += 1; return $0 }) == 1 {
                    #expect(try await PostgresScratchDatabase.endConnections(to: database, admin: admin) == 1)
                    try? await connection.closeFuture.get()
                }
                return try await connection.query("SELECT 7", logger: Logger(label: "navwatch.postgres")).collect()
                    .first?.decode(Int.self)
            }
        }
        #expect(answer == 7)
        #expect(attempts.withLock { $0 } == 2)
        await session.close()
        try await PostgresScratchDatabase.drop(address, admin: admin)
    }
}

@Suite("PostgresAddress.redacting: what navwatch prints of a --db")
struct PostgresRedactionTests {
    @Test("the password becomes ***; addresses without one and file paths stay as they are", arguments: [
        ("postgres://u:s3cret@db.example:5433/crawl?sslmode=require", "postgres://u:***@db.example:5433/crawl?sslmode=require"),
        ("postgresql://u:p%40ss@h/db", "postgresql://u:***@h/db"),
        ("postgres://u@h/db", "postgres://u@h/db"),
        ("postgres://u:a b@h/d b", "postgres://u:***@h/d%20b"),  // Foundation encodes what it tolerates
        ("crawl.db", "crawl.db"),
    ])
    func redacting(text: String, shown: String) {
        #expect(PostgresAddress.redacting(text) == shown)
    }
}

