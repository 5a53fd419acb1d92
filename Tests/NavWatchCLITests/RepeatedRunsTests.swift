import Foundation
import LoopbackServer
import NavWatchCrawler
import Synchronization
import Testing

/// A loopback site whose pages `/`, `/a` and `/b` answer after a delay the
/// test sets: 300 ms times `slowdown`, each load of a page times one of
/// `jitter` in turn (a page's `n`-th load takes the `n`-th). Each page uses
/// the style sheet `/s.css`, fresh for an hour. 300 ms, so that 40 % more
/// (120 ms) stays larger than what a crawl's first, cold load adds to its
/// page (the style sheet fetched, a first layout): at 150 ms a Scripts/test
/// run once found only two of the three pages slower.
private final class TimedSite: Sendable {
    let server: LoopbackServer
    private let settings = Mutex<(slowdown: Double, jitter: [Double], loads: [String: Int])>((1, [1], [:]))

    static func start() async throws -> TimedSite {
        let box = Mutex<TimedSite?>(nil)
        let server = try await LoopbackServer.start { request in
            box.withLock { $0 }!.respond(request)
        }
        let site = TimedSite(server: server)
        box.withLock { $0 = site }
        return site
    }

    private init(server: LoopbackServer) { self.server = server }

    var base: String { server.baseURL.absoluteString }

    /// From now on pages take `slowdown` times as long, each load times the next of `jitter`.
    func set(slowdown: Double, jitter: [Double] = [1]) {
        settings.withLock { $0 = (slowdown, jitter, [:]) }
    }

    private func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/", "/a", "/b":
            let factor = settings.withLock { settings -> Double in
                let load = settings.loads[request.path, default: 0]
                settings.loads[request.path] = load + 1
                return settings.slowdown * settings.jitter[load % settings.jitter.count]
            }
            let links = request.path == "/" ? #"<a href="/a">a</a> <a href="/b">b</a>"# : ""
            return .delayed(.milliseconds(Int64(300 * factor)), .html("""
                <!doctype html><title>Page \(request.path)</title><link rel="stylesheet" href="/s.css"><p>\(links)</p>
                """))
        case "/s.css":
            return .text("p { margin: 1em }", contentType: "text/css", headers: [("Cache-Control", "max-age=3600")])
        default:
            return .html("<title>Not found</title>", status: 404)
        }
    }
}

/// Repeated loads (`--runs`) and the diff's test of them. They time real
/// loads: Scripts/test runs them in a process of their own.
@Suite("Repeated runs: timings of several loads per page, and differences that are real", .serialized)
struct RepeatedRunsTests {
    private static let paths = ["/", "/a", "/b"]

    /// The reports of the crawl in `db`, by path.
    private func reports(_ db: String, _ site: TimedSite) async throws -> [String: PageLoadReport] {
        let export = try await NavwatchProcess.run(["export", "--db", db])
        #expect(export.status == 0)
        let reports = try export.stdout.map { try PageLoadReport.decoder.decode(PageLoadReport.self, from: Data($0.utf8)) }
            .filter(\.isPage)  // the style sheet the pages embed is checked once, and has no timings
        return Dictionary(uniqueKeysWithValues: reports.map { (String($0.url.dropFirst(site.base.count)), $0) })
    }

    @Test("--runs 5: five timings per page in rounds, each a first visit; the medians and spread; a finished crawl loads nothing more")
    func fiveRuns() async throws {
        let site = try await TimedSite.start()
        defer { Task { await site.server.shutdown() } }
        let db = temporaryPath("runs.db")
        defer { try? FileManager.default.removeItem(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--runs", "5", "--concurrency", "1", "--ignore-robots", site.base + "/"])
        #expect(crawl.status == 0, "\(crawl.stderr)")
        // Every page once in the crawl, then every page again in each round: never twice in a row.
        let documents = site.server.receivedRequests.filter { Self.paths.contains($0) }
        #expect(documents == Array(repeating: Self.paths, count: 5).flatMap { $0 })
        // No memory cache: each load fetched the style sheet again.
        #expect(site.server.receivedRequests.filter { $0 == "/s.css" }.count == 15)

        let reports = try await reports(db, site)
        #expect(reports.keys.sorted() == Self.paths)
        for (path, report) in reports {
            let runs = try #require(report.runs, "\(path)")
            #expect(runs.count == 5)
            let finishes = runs.compactMap(\.finish)
            #expect(finishes.count == 5 && finishes.allSatisfy { $0 >= 300 })
            let sorted = finishes.sorted()
            #expect(report.timings.finish == sorted[2])
            let spread = try #require(report.spread?.finish)
            #expect(spread.count == 5 && spread.median == sorted[2] && spread.min == sorted[0] && spread.max == sorted[4])
            #expect(spread.q1 == sorted[1] && spread.q3 == sorted[3])
            #expect(report.timings.commit == runs.compactMap(\.commit).sorted()[2])
        }
        // The reports the crawl wrote are the final ones, with their runs: the same as the database's.
        let written = try crawl.stdout.map { try PageLoadReport.decoder.decode(PageLoadReport.self, from: Data($0.utf8)) }
            .filter(\.isPage)
        #expect(Dictionary(uniqueKeysWithValues: written.map { (String($0.url.dropFirst(site.base.count)), $0) }) == reports)

        // Run again: every page has its five runs, so nothing is loaded.
        let before = site.server.receivedRequests.count
        let again = try await NavwatchProcess.run(["crawl", "--db", db, "--resume", "--runs", "5", "--ignore-robots"])
        #expect(again.status == 0)
        #expect(site.server.receivedRequests.count == before)
        #expect(try await self.reports(db, site) == reports)
    }

    @Test("navwatch URL --runs 3: the loads in turn, then each URL's median and spread")
    func watchRuns() async throws {
        let site = try await TimedSite.start()
        defer { Task { await site.server.shutdown() } }
        let watch = try await NavwatchProcess.run([site.base + "/a", site.base + "/b", "--runs", "3", "--json"])
        #expect(watch.status == 0)
        let objects = try watch.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let finished = objects.filter { $0["event"] as? String == "finished" }
        #expect(finished.map { String(($0["url"] as? String ?? "").dropFirst(site.base.count)) } == ["/a", "/b", "/a", "/b", "/a", "/b"])
        let runs = objects.filter { $0["event"] as? String == "runs" }
        #expect(runs.map { String(($0["url"] as? String ?? "").dropFirst(site.base.count)) } == ["/a", "/b"])
        for (index, line) in runs.enumerated() {
            #expect(line["runs"] as? Int == 3 && line["finished"] as? Int == 3)
            let times = finished.enumerated().filter { $0.offset % 2 == index }.compactMap { $0.element["t_ms"] as? Double }.sorted()
            let finish = try #require(line["finish_ms"] as? [String: Double])
            // The summary's finish and the event's time are one reading of the clock (they were two, up to 0.5 ms apart).
            let figures = [finish["min"], finish["median"], finish["max"]].compactMap { $0 }
            #expect(figures == [times[0], times[1], times[2]], "\(finish) \(times)")
        }
    }

    /// Two crawls of the site with seven runs each, after `first` and after `second`; the diff's slower rows and its rule.
    private func diff(_ site: TimedSite, first: @escaping () -> Void, second: @escaping () -> Void) async throws -> (rows: [String], rule: String) {
        let directory = temporaryPath("runs-diff")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, change) in [("old", first), ("new", second)] {
            change()
            let crawl = try await NavwatchProcess.run(["crawl", "--db", "\(directory)/\(name).db", "--runs", "7", "--concurrency", "1",
                                                       "--ignore-robots", site.base + "/"])
            #expect(crawl.status == 0)
        }
        let diff = try await NavwatchProcess.run(["diff", "\(directory)/old.db", "\(directory)/new.db"])
        #expect(diff.status == 0)
        return (diff.stdout.filter { $0.contains("slower") }, diff.stdout.last ?? "")
    }

    @Test("pages 40 % slower in every run are slower, with the test's figure")
    func slower() async throws {
        let site = try await TimedSite.start()
        defer { Task { await site.server.shutdown() } }
        let (rows, rule) = try await diff(site, first: { site.set(slowdown: 1) }, second: { site.set(slowdown: 1.4) })
        #expect(rows.count == 3, "\(rows)")
        for row in rows {
            let match = try #require(row.firstMatch(of: /! slower: median (\d+) ms of 7 runs → median (\d+) ms of 7 runs; Mann-Whitney U ([\d.]+), p = ([\d.e-]+)/),
                                     "\(row)")
            #expect(Double(match.2)! - Double(match.1)! >= 50, "\(row)")
            #expect(Double(match.4)! <= 0.01, "\(row)")
        }
        #expect(rule == "Slower: finish times larger by a one-sided Mann-Whitney U test at p ≤ 0.01, with a median more than 10 % and 20 ms higher.")
    }

    @Test("an unchanged site with a server whose answers vary by ±30 %: no page is slower")
    func unchanged() async throws {
        let site = try await TimedSite.start()
        defer { Task { await site.server.shutdown() } }
        // The same seven delays in both crawls, in another order each time.
        let jitter = [0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3]
        let (rows, _) = try await diff(site, first: { site.set(slowdown: 1, jitter: jitter) },
                                       second: { site.set(slowdown: 1, jitter: [1.2, 0.7, 1.3, 0.9, 1.0, 0.8, 1.1]) })
        #expect(rows == [])
    }
}
