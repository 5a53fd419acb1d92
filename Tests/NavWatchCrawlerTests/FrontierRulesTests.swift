@testable import NavWatchCrawler
import Testing

@Suite("FrontierRules and FrontierSQL: the frontier's rules, written once for both stores")
struct FrontierRulesTests {
    @Test("a statement's values become placeholders: ? in SQLite, $1, $2, … in PostgreSQL; a list is each string or one array")
    func spelling() {
        let statement = FrontierSQL(.sqlite).renewLeases(["http://a.test/", "http://a.test/b"], worker: "w1", until: 12.5)
        let sqlite = SQLDialect.sqlite.spell(statement)
        #expect(sqlite.sql == "UPDATE frontier SET lease_until = ? WHERE state = 'leased' AND worker = ? AND url IN (?, ?)")
        #expect(sqlite.arguments == [.real(12.5), .text("w1"), .text("http://a.test/"), .text("http://a.test/b")])
        let postgreSQL = SQLDialect.postgreSQL.spell(FrontierSQL(.postgreSQL).renewLeases(["http://a.test/", "http://a.test/b"],
                                                                                            worker: "w1", until: 12.5))
        #expect(postgreSQL.sql == """
            UPDATE navwatch_frontier SET lease_until = $1 WHERE state = 'leased' AND worker = $2 AND url = ANY($3)
            """)
        #expect(postgreSQL.arguments == [.real(12.5), .text("w1"), .texts(["http://a.test/", "http://a.test/b"])])
    }

    @Test("the dialect spells only what differs: the lease's lock and the host's pause")
    func dialects() {
        let lease = { (dialect: SQLDialect) in dialect.spell(FrontierSQL(dialect).nextReady(.queued, now: 1, onlyExternal: false,
                                                                                           hostConcurrency: nil)).sql }
        #expect(lease(.postgreSQL).hasSuffix("LIMIT 1 FOR UPDATE SKIP LOCKED"))
        #expect(!lease(.sqlite).contains("FOR UPDATE"))
        #expect(!lease(.sqlite).contains("HAVING") && !lease(.sqlite).contains("kind IN"))
        let limited = SQLDialect.sqlite.spell(FrontierSQL(.sqlite).nextReady(.expiredLeases, now: 1, onlyExternal: true, hostConcurrency: 2))
        #expect(limited.sql.contains("HAVING COUNT(*) >= ?") && limited.sql.contains("AND kind IN ('external', 'resource', 'external-resource')"))
        #expect(limited.arguments.contains(.integer(2)))
        #expect(SQLText(in: PageLoadReport.Outcome.self, where: \.isFailure).sql == "IN ('failed', 'timeout', 'crashed')")
        let paused = { (dialect: SQLDialect) in dialect.spell(FrontierSQL(dialect).pause("a.test", until: 5)).sql }
        #expect(paused(.sqlite) == "UPDATE hosts SET next_at = MAX(next_at, ?) WHERE host = ?")
        #expect(paused(.postgreSQL) == "UPDATE navwatch_hosts SET next_at = GREATEST(next_at, $1) WHERE host = $2")
    }

    @Test("of the entries ready, the shallowest is leased, then the oldest, whether queued or with an expired lease")
    func earliestReady() {
        let order = { (entry: (name: String, depth: Int, seq: Int64)) in (depth: entry.depth, seq: entry.seq) }
        #expect(FrontierRules.earliest([("queued", 2, 5), ("expired", 1, 9)], by: order)?.name == "expired")
        #expect(FrontierRules.earliest([("queued", 1, 5), ("expired", 1, 9)], by: order)?.name == "queued")
        #expect(FrontierRules.earliest([("expired", 3, 1)], by: order)?.name == "expired")
        #expect(FrontierRules.earliest([(name: String, depth: Int, seq: Int64)](), by: order) == nil)
    }

    @Test("max pages: loaded plus leased pages reach it, then only links to check; none left: over once no page is leased")
    func pageBudget() {
        #expect(FrontierRules.pageBudget(maxPages: 3, loaded: 1, leased: 1, externalLeft: 0) == .open)
        #expect(FrontierRules.pageBudget(maxPages: 3, loaded: 2, leased: 1, externalLeft: 4) == .onlyExternal)
        #expect(FrontierRules.pageBudget(maxPages: 3, loaded: 2, leased: 1, externalLeft: 0) == .spent(.wait(until: nil)))
        #expect(FrontierRules.pageBudget(maxPages: 3, loaded: 3, leased: 0, externalLeft: 0) == .spent(.finished))
        #expect(FrontierRules.nothingReady(pending: 0, earliest: nil) == .finished)
        #expect(FrontierRules.nothingReady(pending: 2, earliest: nil) == .wait(until: nil))
    }

    @Test("completing eases the host's pacing after a page loaded or a link checked, not after a push back or a skip")
    func easing() {
        var report = PageLoadReport(url: "http://a.test/", depth: 0, parent: nil, outcome: .ok)
        report.status = 200
        #expect(FrontierRules.easesHost(report))
        report.status = 429
        #expect(!FrontierRules.easesHost(report))
        report.status = 503
        #expect(!FrontierRules.easesHost(report))
        #expect(!FrontierRules.easesHost(PageLoadReport(url: "http://a.test/", depth: 0, parent: nil, outcome: .skipped)))
    }

    @Test("complete adds aliases (done), discovered links (queued), skipped links (done), and acts only on those added")
    func completion() {
        let page = FrontierEntry(url: "http://a.test/p", depth: 1, parent: "http://a.test/")
        var checked = PageLoadReport(url: "http://b.test/", depth: 2, parent: page.url, outcome: .skipped)
        checked.checkedWith = .head
        let skipped = PageLoadReport(url: "http://a.test/deep", depth: 2, parent: page.url, outcome: .skipped)
        let completion = FrontierRules.Completion(page, aliases: ["http://a.test/q", "http://a.test/r"],
                                                  discovered: [FrontierEntry(url: "http://a.test/s", depth: 2, parent: page.url)],
                                                  skipped: [checked, skipped])
        #expect(completion.rows.map(\.entry.url) == ["http://a.test/q", "http://a.test/r", "http://a.test/s", "http://b.test/",
                                                     "http://a.test/deep"])
        #expect(completion.rows.map(\.state) == [.done, .done, .queued, .done, .done])
        #expect(completion.rows[0].entry.depth == 1 && completion.rows[0].entry.parent == "http://a.test/")
        #expect(completion.rows.map(\.entry.kind) == [.page, .page, .page, .external, .page])
        // The second alias and the checked link were in the frontier already.
        let added = [0, 2, 4]
        #expect(completion.aliases(among: added) == ["http://a.test/q"])
        #expect(completion.skippedReports(among: added).map(\.report.url) == ["http://a.test/deep"])
        #expect(completion.skippedReports(among: [3, 4]).map(\.kind) == [.external, .page])
    }
}
