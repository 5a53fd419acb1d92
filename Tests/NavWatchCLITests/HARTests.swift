import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

private let site = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// The HAR at `path`, validated against HAR 1.2, and its entries.
private func entries(ofHARAt path: String) throws -> [[String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(HARValidator.problems(in: data) == [])
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
}

/// `path status type [redirect target] [error]` per entry, the site's base cut off.
private func shape(_ entries: [[String: Any]], base: URL) -> [String] {
    entries.map { entry in
        let request = entry["request"] as? [String: Any] ?? [:], response = entry["response"] as? [String: Any] ?? [:]
        let cut = { (text: String) in text.replacingOccurrences(of: base.absoluteString, with: "") }
        var line = "\(cut(request["url"] as? String ?? "")) \(response["status"] ?? "-") \(entry["_resourceType"] ?? "-")"
        if let target = response["redirectURL"] as? String, !target.isEmpty { line += " -> \(cut(target))" }
        if let error = entry["_error"] as? String { line += " error:\(error)" }
        if entry["_pending"] as? Bool == true { line += " pending" }
        return line
    }
}

@Suite("HAR 1.2 from navwatch")
struct HARTests {
    /// What /rich requests. With the DOCUMENT_VIEWER cache model WebKit has
    /// no memory cache, so an image the preload scanner fetched is fetched
    /// again when the element loads: each image request may appear twice.
    static let richRequests: Set<String> = [
        "/image.svg 200 image", "/missing.svg 404 image", "/redirect/image 302 image -> /image.svg",
        "/rich 200 document", "/rich.css 200 stylesheet", "/rich.js 200 script",
    ]

    @Test("navwatch URL --har: one entry per request, redirects as entries, headers, statuses and sizes")
    func watchHAR() async throws {
        let server = try await site.value
        let har = temporaryPath("page.har")
        defer { try? FileManager.default.removeItem(atPath: har) }
        let run = try await NavwatchProcess.run([server.url("/rich").absoluteString, "--har", har])
        #expect(run.status == 0)
        let all = try entries(ofHARAt: har)
        #expect(Set(shape(all, base: server.baseURL)) == Self.richRequests)
        #expect(shape(all, base: server.baseURL).filter { !$0.contains(" image") }.count == 3)
        #expect(shape([all[0]], base: server.baseURL) == ["/rich 200 document"])
        let document = all[0]
        let request = try #require(document["request"] as? [String: Any])
        let requestHeaders = try #require(request["headers"] as? [[String: String]])
        #expect(requestHeaders.contains { $0["name"] == "User-Agent" })
        let response = try #require(document["response"] as? [String: Any])
        #expect(response["statusText"] as? String == "OK")
        let responseHeaders = try #require(response["headers"] as? [[String: String]])
        #expect(responseHeaders.contains { $0["name"] == "Content-Type" && $0["value"] == "text/html; charset=utf-8" })
        let css = try #require(all.first { ($0["request"] as? [String: Any])?["url"] as? String == server.url("/rich.css").absoluteString })
        let content = try #require((css["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["size"] as? Int == 18 && content["mimeType"] as? String == "text/css")
        #expect((css["_transferSize"] as? Int ?? 0) > 18)
    }

    @Test("a page that times out lists its pending request; a refused one its error kind")
    func failuresInHAR() async throws {
        let server = try await LoopbackServer.start(route: FixtureSite.route)  // its /hang holds a connection
        defer { Task { await server.shutdown() } }
        let har = temporaryPath("failures.har")
        defer { try? FileManager.default.removeItem(atPath: har) }
        // Each load may take 10 s: /page starts the web process, which took
        // over 4 s on a busy machine. /hang last: in Scripts/test runs, a
        // refused load right after /hang's timeout twice outlasted 4 s (ended
        // in timeout, not blocked-port), while /hang's connection was still open.
        let run = try await NavwatchProcess.run([server.url("/page").absoluteString, "http://127.0.0.1:1/",
                                                 server.url("/hang").absoluteString, "--timeout", "10", "--har", har])
        #expect(run.status == 1)
        let all = try entries(ofHARAt: har)
        #expect(shape(all, base: server.baseURL) == ["/page 200 document", "http://127.0.0.1:1/ 0 document error:blocked-port",
                                                     "/hang 0 document pending"])
    }

    @Test("navwatch URL --har and navwatch crawl report the same loads the same way: a page and a timeout")
    func sameLoadSameReport() async throws {
        let server = try await LoopbackServer.start(route: FixtureSite.route)  // its /hang holds a connection
        defer { Task { await server.shutdown() } }
        let watched = temporaryPath("watched.har"), db = temporaryPath("same.db"), crawled = temporaryPath("crawled.har")
        defer { for path in [watched, db, db + "-wal", db + "-shm", crawled] { try? FileManager.default.removeItem(atPath: path) } }
        let urls = [server.url("/page").absoluteString, server.url("/hang").absoluteString]
        let watch = try await NavwatchProcess.run(urls + ["--timeout", "10", "--har", watched])
        #expect(watch.status == 1)
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", "--retries", "0",
                                                   "--timeout", "10"] + urls)
        #expect(crawl.status == 0)
        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "har", "--out", crawled])
        #expect(export.status == 0)
        func pages(_ path: String) throws -> [String] {
            let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            let pages = (root?["log"] as? [String: Any])?["pages"] as? [[String: Any]] ?? []
            return pages.map { page in
                let timings = page["pageTimings"] as? [String: Any] ?? [:]
                let loaded = (timings["onLoad"] as? Double ?? -1) >= 0 ? "loaded" : "not loaded"
                return "\((page["title"] as? String ?? "").replacingOccurrences(of: server.baseURL.absoluteString, with: "")) \(loaded)"
            }.sorted()
        }
        #expect(try pages(watched) == ["/hang not loaded", "Plain loaded"])
        #expect(try pages(crawled) == pages(watched))
        let watchedEntries = shape(try entries(ofHARAt: watched), base: server.baseURL).sorted()
        #expect(watchedEntries == ["/hang 0 document pending", "/page 200 document"])
        #expect(shape(try entries(ofHARAt: crawled), base: server.baseURL).sorted() == watchedEntries)
    }

    @Test("requests a page makes after its load: navwatch URL --har and navwatch crawl list the same (one settle rule); --wait-until finish stops before them")
    func lateRequests() async throws {
        let server = try await site.value
        let url = server.url("/late-requests").absoluteString
        let watched = temporaryPath("late-watched.har"), finished = temporaryPath("late-finish.har")
        let db = temporaryPath("late.db"), crawled = temporaryPath("late-crawled.har")
        defer {
            for path in [watched, finished, crawled] { try? FileManager.default.removeItem(atPath: path) }
            removeSQLiteDatabase(atPath: db)
        }
        // A settle time a busy machine's timers cannot outrun: the late requests start 100 ms after the load.
        let watch = try await NavwatchProcess.run([url, "--har", watched, "--settle", "3000"])
        #expect(watch.status == 0)
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", "--settle", "3000", url])
        #expect(crawl.status == 0)
        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "har", "--out", crawled])
        #expect(export.status == 0)
        let watchedEntries = shape(try entries(ofHARAt: watched), base: server.baseURL).sorted()
        #expect(watchedEntries == ["/late-data 200 fetch", "/late-missing.png 404 image", "/late-requests 200 document"])
        #expect(shape(try entries(ofHARAt: crawled), base: server.baseURL).sorted() == watchedEntries)
        let finish = try await NavwatchProcess.run([url, "--wait-until", "finish", "--har", finished])
        #expect(finish.status == 0)
        #expect(shape(try entries(ofHARAt: finished), base: server.baseURL) == ["/late-requests 200 document"])
    }

    @Test("navwatch export --format har: every request of every page of a crawl")
    func crawlHAR() async throws {
        let server = try await site.value
        let db = temporaryPath("crawl.db"), har = temporaryPath("crawl.har")
        defer { for path in [db, db + "-wal", db + "-shm", har] { try? FileManager.default.removeItem(atPath: path) } }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", server.url("/rich").absoluteString])
        #expect(crawl.status == 0)
        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "har", "--out", har])
        #expect(export.status == 0)
        #expect(Set(shape(try entries(ofHARAt: har), base: server.baseURL)) == Self.richRequests)
    }
}
