import Foundation
import LoopbackServer
import NavWatchTestSupport
import Synchronization
import Testing

@Suite("navwatch crawl: politeness that adapts, and --host-concurrency")
struct PolitenessTests {
    /// A site of `pages` pages, all linked from `/`, that answers 429 to a
    /// page asked for when five were answered in the last second, and
    /// records every answer (with when it was asked, since the site started)
    /// and how many requests it was serving at once.
    ///
    /// From the crawl's own pace the host is asked 1, 0.5, 0.25 and 0.125 s
    /// apart, three answers each, and pushes back again; each widening at
    /// least doubles the floor, and the host is asked at most four times a
    /// second once the floor is 0.5 s. It may take up to four such rounds,
    /// some 60 requests (a 48-page site left a fourth round in the last
    /// third, in a full run of Scripts/test). The site has 96 pages, so that
    /// the last third starts after them.
    private final class RateLimitedSite: Sendable {
        static let pages = 96
        static let perSecond = 5

        struct State {
            var answered: [ContinuousClock.Instant] = []
            var log: [(path: String, status: Int, at: Duration)] = []
            let start = ContinuousClock.now
            var inFlight = 0
            var mostInFlight = 0
        }

        let state = Mutex(State())
        let delay: Duration

        init(delay: Duration = .zero) { self.delay = delay }

        func route(_ request: LoopbackRequest) -> LoopbackResponse {
            guard request.path == "/" || request.path.hasPrefix("/p/") else { return .text("", status: 404) }
            let now = ContinuousClock.now
            let limited = state.withLock { state in
                state.answered.removeAll { now - $0 > .seconds(1) }
                let limited = state.answered.count >= Self.perSecond
                if !limited { state.answered.append(now) }
                state.log.append((request.path, limited ? 429 : 200, now - state.start))
                return limited
            }
            if limited { return .text("slow down", status: 429) }
            let links = request.path == "/" ? (1..<Self.pages).map { #"<a href="/p/\#($0)">\#($0)</a>"# }.joined() : ""
            return .html("<!doctype html><title>\(request.path)</title><body>\(links)</body>")
        }
    }

    @Test("a host that answers 429 above a rate is asked below it once adapted, and every page is loaded")
    func adapts() async throws {
        let site = RateLimitedSite()
        let server = try await LoopbackServer.start(route: { site.route($0) })
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("polite.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--retries", "4", server.url("/").absoluteString])
        #expect(crawl.status == 0)
        let reports = try crawl.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(reports.count == RateLimitedSite.pages)
        #expect(reports.allSatisfy { $0["outcome"] as? String == "ok" && $0["status"] as? Int == 200 })

        let log = site.state.withLock { $0.log }
        let pushBacks = log.filter { $0.status == 429 }.count
        #expect(pushBacks >= 1 && pushBacks <= 12, "\(log)")
        // Adapted: no push back among the last third of the requests.
        #expect(log.suffix(RateLimitedSite.pages / 3).allSatisfy { $0.status == 200 }, "\(log)")
        let summary = crawl.stderr.split(separator: "\n").map(String.init)
        #expect(summary.contains { $0.hasPrefix("  host 127.0.0.1: \(RateLimitedSite.pages) requests, pushed back \(pushBacks) time") },
                "\(summary)")
    }

    @Test("--delay spaces the requests the site sees, also when a slow page held a worker with its next page leased")
    func delaySpacesRequests() async throws {
        // Two pages answer after 5 s. Their worker has leased its next page
        // meanwhile, and the other worker asks every 2 s: asked the moment
        // the slow page ends, that next page would come within 1 s of one of
        // the other worker's requests.
        let arrivals = Mutex<[(path: String, at: ContinuousClock.Instant)]>([])
        let slow: Set<String> = ["/p/2", "/p/5"]
        let server = try await LoopbackServer.start(route: { request in
            guard request.path == "/" || request.path.hasPrefix("/p/") else { return .text("", status: 404) }
            arrivals.withLock { $0.append((request.path, .now)) }
            let links = request.path == "/" ? (1..<8).map { #"<a href="/p/\#($0)">\#($0)</a>"# }.joined() : ""
            let page = LoopbackResponse.html("<!doctype html><title>p</title><body>\(links)</body>")
            return slow.contains(request.path) ? .delayed(.seconds(5), page) : page
        })
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("delay.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--delay", "2000", server.url("/").absoluteString])
        #expect(crawl.status == 0)
        #expect(crawl.stdout.count == 8)
        let log = arrivals.withLock { $0 }
        #expect(log.count == 8)
        // 2 s apart when navwatch asks for them. Spaced by lease alone, the
        // gaps were under 1 s; with a view made after the turn (600 ms on a
        // busy machine) CI saw 1.36 s. What is left is the time a request
        // takes to leave WebKit, which the turn does not see: the first one,
        // which waits for a web process to start, came 320 ms late in one
        // full run and 580 ms late in another, so its gap is held to 1 s
        // (the lease-only defect gave less), the others to 1.5 s.
        let gaps = zip(log, log.dropFirst()).map { ($1.path, $1.at - $0.at) }
        #expect(gaps.first.map { $0.1 > .seconds(1) } == true, "\(gaps)")
        #expect(gaps.dropFirst().allSatisfy { $0.1 > .milliseconds(1500) }, "\(gaps)")
    }

    @Test("--host-concurrency caps the pages in flight on a host, whatever --concurrency")
    func hostConcurrency() async throws {
        // Every page takes 150 ms to answer: with one in flight at a time, requests come at least that far apart.
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let server = try await LoopbackServer.start(route: { request in
            guard request.path == "/" || request.path.hasPrefix("/p/") else { return .text("", status: 404) }
            arrivals.withLock { $0.append(.now) }
            let links = request.path == "/" ? (1..<12).map { #"<a href="/p/\#($0)">\#($0)</a>"# }.joined() : ""
            return .delayed(.milliseconds(150), .html("<!doctype html><title>p</title><body>\(links)</body>"))
        })
        defer { Task { await server.shutdown() } }
        func closestArrivals(_ arguments: [String]) async throws -> Duration {
            arrivals.withLock { $0 = [] }
            let db = temporaryPath("host-concurrency.db")
            defer { removeSQLiteDatabase(atPath: db) }
            let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--concurrency", "3"] + arguments + [server.url("/").absoluteString])
            #expect(crawl.status == 0)
            #expect(crawl.stdout.count == 12)
            let times = arrivals.withLock { $0 }
            return zip(times, times.dropFirst()).map { $1 - $0 }.min() ?? .zero
        }
        #expect(try await closestArrivals(["--host-concurrency", "1"]) >= .milliseconds(150))
        // Without it, three views ask at once: two requests overlap, one asked before the other was answered.
        #expect(try await closestArrivals([]) < .milliseconds(150))
    }
}
