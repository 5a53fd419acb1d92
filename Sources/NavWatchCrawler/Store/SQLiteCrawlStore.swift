import Foundation
import GRDB
import Synchronization

/// A crawl's frontier and reports in one SQLite file (WAL mode), for the
/// crawlers of one process; what `navwatch crawl --db FILE` writes, and
/// what `navwatch export`, `links` and `report` read. Databases written by
/// earlier versions are migrated when opened.
///
/// A committed report survives the process being killed (`kill -9`); only
/// a power loss can take back the last pages, which a resume loads again.
public final class SQLiteCrawlStore: CrawlStore {
    private let database: DatabaseQueue
    private let cpu = CPUTimeCounter()
    /// The reports of pages loaded (`FrontierSQL.loadedPageCount`): counted
    /// from the reports at the first lease under `maxPages`, then kept by
    /// `complete`, as this store is the only writer of its file. Counting
    /// them at every lease took time in proportion to the pages loaded.
    private let loadedPages = Mutex<Int?>(nil)

    package var isShared: Bool { false }

    package var databaseCPUSeconds: Double? { cpu.seconds }

    /// Opens or creates the crawl database at `path`, creating or migrating its schema.
    public convenience init(path: String) throws {
        self.init(database: try Self.writable(path))
    }

    private init(database: DatabaseQueue) {
        self.database = database
    }

    /// The database at `path`, created or migrated.
    private static func writable(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        // WAL with synchronous=NORMAL: a commit survives a killed process
        // (kill -9) without waiting for the disk on every page; only a power
        // loss can take back the last pages, which a resume then loads again.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try migrator.migrate(database)
        return database
    }

    /// Opens the crawl database at `path` to read it, read-only: a file that
    /// is empty, not SQLite, or SQLite without navwatch's tables (`frontier`
    /// and `reports`, which every version made) is refused and left as it
    /// was, byte for byte, with no journal beside it. A crawl written by an
    /// earlier version, whose schema lacks later migrations, is migrated as
    /// `init(path:)` does, once.
    ///
    /// A crawl with no `-wal` file beside it (none is writing it; the last
    /// writer folded its log in) is read as an immutable file, so that
    /// SQLite makes no `-wal` and `-shm` files; one with a `-wal` file (a
    /// crawl under way, or one killed) is read through its log.
    ///
    /// - Throws: `CrawlFileError` for a file that holds no crawl; GRDB's
    ///   errors for one that cannot be read.
    public convenience init(readingAt path: String) throws {
        self.init(database: try Self.readable(path))
    }

    /// The database at `path`, read-only, once it is known to hold a crawl.
    private static func readable(_ path: String) throws -> DatabaseQueue {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { throw CrawlFileError(path: path, reason: .empty) }
        if let file = FileHandle(forReadingAtPath: path) {
            let header = (try? file.read(upToCount: 16)) ?? nil
            try? file.close()
            if header != Data("SQLite format 3\u{0}".utf8) { throw CrawlFileError(path: path, reason: .notSQLite) }
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let log = FileManager.default.fileExists(atPath: path + "-wal")
        let reading = try DatabaseQueue(path: log ? path : immutableURI(path), configuration: configuration)
        let tables = try reading.read { db in try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")) }
        guard tables.isSuperset(of: ["frontier", "reports"]) else { throw CrawlFileError(path: path, reason: .notACrawl) }
        guard try reading.read({ db in try migrator.hasCompletedMigrations(db) }) else {
            try reading.close()
            return try writable(path)
        }
        return reading
    }

    /// An SQLite URI that opens the file at `path` as one nothing changes
    /// while it is read: no locks, no `-wal` or `-shm` files.
    private static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    package func settings() async throws -> CrawlSettings? {
        try await read { db in try Self.settings(in: db) }
    }

    package func start(with settings: CrawlSettings) async throws -> CrawlSettings {
        try await write { db in
            if let stored = try Self.settings(in: db) { return stored }
            let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
            try db.execute(sql: "INSERT INTO settings (id, json) VALUES (1, ?)", arguments: [json])
            return settings
        }
    }

    package func enqueue(_ entries: [FrontierEntry]) async throws -> [FrontierEntry] {
        try await write { db in try Self.insert(entries.map { ($0, .queued) }, in: db).map { entries[$0] } }
    }

    package func seeds() async throws -> [String] {
        try await read { db in try Self.fetchAll(Self.frontier.seeds, in: db).map { $0[0] } }
    }

    package func lease(_ request: LeaseRequest) async throws -> LeaseOutcome {
        let now = request.now.timeIntervalSince1970
        return try await write { db in
            var budget = FrontierRules.PageBudget.open
            if let maxPages = request.maxPages {
                let loaded = try self.loadedPages.withLock { count in
                    if count == nil { count = try Self.fetchOne(Self.frontier.loadedPageCount, in: db)[0] }
                    return count ?? 0
                }
                let counts = try Self.fetchOne(Self.frontier.pageCounts(now: now, countingLoaded: false), in: db)
                budget = FrontierRules.pageBudget(maxPages: maxPages, loaded: loaded, leased: counts[1], externalLeft: counts[2])
                if case .spent(let outcome) = budget { return outcome }
            }
            let candidates = try FrontierSQL.ReadyEntries.allCases.compactMap { entries in
                try Self.fetchAll(Self.frontier.nextReady(entries, now: now, onlyExternal: budget == .onlyExternal,
                                                          hostConcurrency: request.hostConcurrency), in: db).first
            }
            if let row = FrontierRules.earliest(candidates, by: { (depth: $0[1], seq: $0[7]) }) {
                var (entry, host): (FrontierEntry, String) = (Self.entry(row), row[5])
                let delay = request.hostDelay(for: entry.kind)
                entry.spacing = max(delay, row[6])
                try Self.execute(Self.frontier.lease(entry.url, to: request.worker, until: request.until.timeIntervalSince1970),
                                 in: db)
                try Self.execute(Self.frontier.hostLeased(host, now: now, delay: delay), in: db)
                return .leased(entry)
            }
            let waiting = try Self.fetchOne(Self.frontier.nothingReady(now: now), in: db)
            return FrontierRules.nothingReady(pending: waiting[0],
                                              earliest: (waiting[1] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    package func renewLeases(_ urls: [String], worker: String, until: Date) async throws {
        guard !urls.isEmpty else { return }
        try await write { db in
            try Self.execute(Self.frontier.renewLeases(urls, worker: worker, until: until.timeIntervalSince1970), in: db)
        }
    }

    package func complete(_ entry: FrontierEntry, worker: String, report: PageLoadReport, aliases: [String],
                         discovered: [FrontierEntry], skipped: SkippedLinks, links: [PageLink]) async throws -> CompletionReports {
        // The report's JSON is written here, on the caller's thread, not on the store's one writer.
        let storeReport = Self.reportSQL.store(report, kind: entry.kind, worker: worker)
        return try await write { db in
            var stored = CompletionReports(skipped: skipped)
            var loadedPage = false
            if try Self.store(storeReport, in: db) {
                stored.storedPage(report)
                loadedPage = entry.kind == .page && PageLoadReport.Tally(outcome: report.outcome, isCheck: false) == .loaded
                try Self.insert(links, in: db)
            }
            try Self.execute(Self.frontier.complete(entry.url, attempts: report.attempts, worker: worker), in: db)
            if FrontierRules.easesHost(report) {
                try Self.pace(entry.host, onlyWhenSlowed: true, in: db) { pacing, _ in pacing.answered() }
            }
            let completion = FrontierRules.Completion(entry, aliases: aliases, discovered: discovered, skipped: skipped)
            let added = try Self.insert(completion.rows, in: db)
            let addedAliases = completion.aliases(among: added)
            if !addedAliases.isEmpty { try Self.execute(Self.frontier.aliases(addedAliases, of: entry.url), in: db) }
            for (position, skip, kind) in completion.skippedReports(among: added) {
                if try Self.store(skip, kind: kind, worker: worker, in: db) { stored.storedSkipped(at: position) }
            }
            if loadedPage { self.loadedPages.withLock { count in count = count.map { $0 + 1 } } }
            return stored
        }
    }

    package func pushBack(host: String, retryAfter: Double?, at date: Date) async throws {
        let now = date.timeIntervalSince1970
        try await write { db in
            try Self.execute(Self.frontier.addHost(host), in: db)
            let pacing = try Self.pace(host, onlyWhenSlowed: false, in: db) { $0.pushedBack(retryAfter: retryAfter, at: now, leaseGap: $1) }
            try Self.execute(Self.frontier.pause(host, until: now + pacing.interval), in: db)
        }
    }

    /// Changes the pacing of `host` with `change`, when it has a row (and
    /// is slowed down, with `onlyWhenSlowed`); returns it as changed.
    @discardableResult
    private static func pace(_ host: String, onlyWhenSlowed: Bool, in db: Database,
                             _ change: (inout HostPacing, _ leaseGap: Double) -> Void) throws -> HostPacing {
        guard let row = try fetchAll(frontier.pacing(of: host, onlyWhenSlowed: onlyWhenSlowed), in: db).first else {
            return HostPacing()
        }
        var pacing = Self.pacing(row, from: 0)
        change(&pacing, row[6])
        try execute(frontier.setPacing(pacing, of: host), in: db)
        return pacing
    }

    package func hostStatistics() async throws -> [HostStatistics] {
        try await read { db in
            try Self.fetchAll(Self.frontier.hostStatistics, in: db).map { row in
                HostStatistics(host: row[0], requests: row[7], pacing: Self.pacing(row, from: 1))
            }
        }
    }

    package func retry(_ entry: FrontierEntry, notBefore: Date) async throws {
        try await write { db in
            try Self.execute(Self.frontier.retry(entry.url, attempts: entry.attempts, notBefore: notBefore.timeIntervalSince1970),
                             in: db)
        }
    }

    package func releaseLeases() async throws {
        try await write { db in try Self.execute(Self.frontier.releaseLeases, in: db) }
    }

    package func skipQueued(reason: PageLoadReport.SkipReason) async throws -> [PageLoadReport] {
        try await write { db in
            var stored: [PageLoadReport] = []
            for entry in try Self.fetchAll(Self.frontier.queued, in: db).map(Self.entry) {
                let report = PageLoadReport.skipped(entry, reason)
                if try Self.store(report, kind: entry.kind, worker: nil, in: db) { stored.append(report) }
                try Self.execute(Self.frontier.skip(entry.url), in: db)
            }
            return stored
        }
    }

    package func reports(after position: Int64, limit: Int, includingRequests: Bool) async throws -> [StoredReport] {
        try await read { db in
            try Self.fetchAll(Self.reportSQL.reports(after: position, limit: limit, includingRequests: includingRequests), in: db)
                .map { row in StoredReport(position: row[0], report: try PageLoadReport(json: row[1], requests: row[2])) }
        }
    }

    package func linkGraph() async throws -> LinkGraph {
        try await read { db in
            var graph = LinkGraph()
            // Exactly as many as there are: a crawl can have millions, and an array grown by appending has room to spare.
            graph.links.reserveCapacity(try Self.fetchOne(Self.reportSQL.linkCount, in: db)[0])
            let (statement, _) = try Self.prepare(Self.reportSQL.allLinks, in: db)
            var rows = RawStatement(statement, in: db)
            defer { rows.reset() }
            // A page's links are stored together: they share one copy of its URL.
            var source = "", learnedFrom = PageLink.LearnedFromReader()
            while try rows.step() {
                let route = PageLink.route(fromText: rows.text(7))
                if !rows.text(0, is: source) { source = rows.text(0) ?? "" }
                graph.links.append(PageLink(source: source, target: rows.text(1) ?? "", href: rows.text(2) ?? "",
                                            fragment: rows.text(3), text: rows.text(4) ?? "", rel: rows.text(5),
                                            element: rows.text(6) ?? "", reached: route.reached, routeTitle: route.title,
                                            learnedFrom: learnedFrom.read(rows.text(8)), resource: rows.text(9)))
            }
            for row in try Self.fetchAll(Self.reportSQL.aliases, in: db) {
                graph.aliases[row[0]] = row[1]
            }
            let pages = graph.fragmentTargets
            for row in try Self.fetchAll(Self.reportSQL.anchors, in: db) {
                graph.addAnchors(of: row[0], anchors: row[1], textFragments: row[2], among: pages)
            }
            return graph
        }
    }

    package func textFragmentTargets() async throws -> [String: TextFragmentTarget] {
        try await read { db in
            var targets: [String: TextFragmentTarget] = [:]
            let rows = try Self.fetchCursor(Self.reportSQL.textFragmentLinks, in: db)
            while let row = try rows.next() {
                targets[row[0], default: TextFragmentTarget()].add(fragment: row[1], foundText: row[2])
            }
            return targets
        }
    }

    package func recordTextFragments(_ found: [String: Bool], for url: String) async throws {
        try await write { db in try Self.execute(Self.reportSQL.recordTextFragments(found, for: url), in: db) }
    }

    package func updateTimings(of report: PageLoadReport) async throws {
        try await write { db in try Self.execute(Self.reportSQL.update(report), in: db) }
    }

    package func counts() async throws -> CrawlCounts {
        try await read { db in
            var counts = CrawlCounts()
            let frontier = try Self.fetchOne(Self.frontier.frontierCounts, in: db)
            (counts.queued, counts.leased) = (frontier[0], frontier[1])
            for row in try Self.fetchAll(Self.reportSQL.tallies, in: db) {
                guard let tally = PageLoadReport.Tally(rawValue: row[0]) else { continue }
                counts.tallies[tally] = row[1]
                counts.failed += row[2] as Int
            }
            counts.workers = try Self.fetchAll(Self.reportSQL.workerCounts, in: db).map {
                WorkerCounts(worker: $0[0] ?? "", leased: $0[1], loaded: $0[2], checked: $0[3], failed: $0[4])
            }
            return counts
        }
    }

    /// `database.write`, its CPU time counted.
    private func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.write { [cpu] db in try cpu.measure { try updates(db) } }
    }

    /// `database.read`, its CPU time counted.
    private func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read { [cpu] db in try cpu.measure { try value(db) } }
    }

    /// Does nothing: the file is closed when the store is released.
    public func close() async {}

    /// Every stored report, in the order stored, read a batch at a time as
    /// the sequence is iterated: memory holds one batch however many
    /// reports there are. `includingRequests` reads each report's requests
    /// (`PageLoadReport.requests`) too.
    public func storedReports(includingRequests: Bool = false) -> StoredReports {
        (self as any CrawlStore).storedReports(includingRequests: includingRequests)
    }

    private static func settings(in db: Database) throws -> CrawlSettings? {
        try String.fetchOne(db, sql: "SELECT json FROM settings WHERE id = 1").map {
            try JSONDecoder().decode(CrawlSettings.self, from: Data($0.utf8))
        }
    }

    /// Inserts, each in its state, the entries whose URL is new, in the
    /// order given; a URL given twice counts once, the first time. Returns
    /// the indexes in `entries` of those inserted.
    private static func insert(_ entries: [(entry: FrontierEntry, state: FrontierState)], in db: Database) throws -> [Int] {
        guard !entries.isEmpty else { return [] }
        var insert = RawStatement(try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO frontier (url, depth, parent, state, attempts, host, kind, seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM frontier))
            """), in: db)
        var added: [Int] = []
        for (index, (entry, state)) in entries.enumerated() {
            insert.reset()
            insert.bind(entry.url)
            insert.bind(entry.depth)
            insert.bind(entry.parent)
            insert.bind(state.rawValue)
            insert.bind(entry.attempts)
            insert.bind(entry.host)
            insert.bind(entry.kind.rawValue)
            _ = try insert.step()
            if db.changesCount == 1 { added.append(index) }
        }
        insert.reset()
        return added
    }

    /// The most link rows one statement inserts: a page's links take a few
    /// statements, not one each (10 arguments a row, within SQLite's 32,766).
    static let linksPerInsert = 64

    /// The statements that insert 0 to `linksPerInsert` link rows, by their number of rows.
    private static let insertLinksSQL = (0...linksPerInsert).map { count in
        "INSERT INTO links (source, target, href, fragment, text, rel, element, route, learned_from, resource) VALUES "
            + repeatElement("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    /// Inserts a page's links, in order, `linksPerInsert` rows a statement.
    private static func insert(_ links: [PageLink], in db: Database) throws {
        var start = links.startIndex
        while start < links.endIndex {
            let rows = links[start..<min(start + linksPerInsert, links.endIndex)]
            var insert = RawStatement(try db.cachedStatement(sql: insertLinksSQL[rows.count]), in: db)
            for link in rows {
                insert.bind(link.source); insert.bind(link.target); insert.bind(link.href); insert.bind(link.fragment)
                insert.bind(link.text); insert.bind(link.rel); insert.bind(link.element); insert.bind(link.routeText)
                insert.bind(link.learnedFromText); insert.bind(link.resource)
            }
            _ = try insert.step()
            insert.reset()
            start = rows.endIndex
        }
    }

    /// Stores `report` unless one for its URL exists; returns whether it did.
    private static func store(_ report: PageLoadReport, kind: FrontierEntry.Kind, worker: String?, in db: Database) throws -> Bool {
        try store(reportSQL.store(report, kind: kind, worker: worker), in: db)
    }

    /// Runs `ReportSQL.store`'s statement: whether it stored the report.
    private static func store(_ statement: SQLStatement, in db: Database) throws -> Bool {
        try execute(statement, in: db)  // its row is not read: counted
        return db.changesCount == 1
    }

    // MARK: Running FrontierSQL and ReportSQL

    private static let frontier = FrontierSQL(.sqlite)
    private static let reportSQL = ReportSQL(.sqlite)

    /// `statement` prepared (GRDB keeps it for the next time its text comes
    /// again), with its arguments.
    private static func prepare(_ statement: SQLStatement, in db: Database) throws -> (Statement, StatementArguments) {
        let (sql, arguments) = SQLDialect.sqlite.spell(statement)
        return (try db.cachedStatement(sql: sql), StatementArguments(arguments.map(\.databaseValue)))
    }

    /// Runs `statement` to its end (through the rows it returns, unread),
    /// its arguments bound with SQLite's own calls: a page's skipped links
    /// each store a report, and GRDB's generic arguments were a large part of their time.
    private static func execute(_ statement: SQLStatement, in db: Database) throws {
        let (sql, arguments) = SQLDialect.sqlite.spell(statement)
        var prepared = RawStatement(try db.cachedStatement(sql: sql), in: db)
        defer { prepared.reset() }
        for argument in arguments { prepared.bind(argument) }
        while try prepared.step() {}
    }

    private static func fetchAll(_ statement: SQLStatement, in db: Database) throws -> [Row] {
        let (prepared, arguments) = try prepare(statement, in: db)
        return try Row.fetchAll(prepared, arguments: arguments)
    }

    private static func fetchCursor(_ statement: SQLStatement, in db: Database) throws -> RowCursor {
        let (prepared, arguments) = try prepare(statement, in: db)
        return try Row.fetchCursor(prepared, arguments: arguments)
    }

    /// The one row of a statement that always returns one (an aggregate).
    private static func fetchOne(_ statement: SQLStatement, in db: Database) throws -> Row {
        let (prepared, arguments) = try prepare(statement, in: db)
        guard let row = try Row.fetchOne(prepared, arguments: arguments) else {
            preconditionFailure("Internal inconsistency: an aggregate returned no row")
        }
        return row
    }

    /// A `FrontierEntry` from `FrontierSQL`'s columns of one.
    private static func entry(_ row: Row) -> FrontierEntry {
        FrontierEntry(url: row[0], depth: row[1], parent: row[2], attempts: row[3], storedKind: row[4])
    }

    /// A `HostPacing` from `FrontierSQL`'s columns of one, the first at `first`.
    private static func pacing(_ row: Row, from first: Int) -> HostPacing {
        HostPacing(interval: row[first], tooFast: row[first + 1], answers: row[first + 2], pushBacks: row[first + 3],
                   widest: row[first + 4], widenedAt: row[first + 5])
    }
}

extension SQLStatement.Argument {
    /// The argument as GRDB binds it.
    fileprivate var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .texts: preconditionFailure("Internal inconsistency: SQLite binds the strings of a list one by one (SQLDialect.sqlite)")
        }
    }
}

/// Why a file given to a reading command holds no crawl, in one line.
public struct CrawlFileError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the file.
    public enum Reason: Sendable {
        /// It has no bytes.
        case empty
        /// It does not start as a SQLite database does.
        case notSQLite
        /// It is SQLite without navwatch's tables.
        case notACrawl
    }

    /// The file, as it was given.
    public let path: String
    /// What is wrong with it.
    public let reason: Reason

    /// `navwatch.db is empty, not a crawl database`, and the like.
    public var description: String {
        switch reason {
        case .empty: return "\(path) is empty, not a crawl database"
        case .notSQLite: return "\(path) is not a crawl database: it is not a SQLite file"
        case .notACrawl: return "\(path) is not a crawl database: it has no navwatch tables (frontier, reports)"
        }
    }
}
