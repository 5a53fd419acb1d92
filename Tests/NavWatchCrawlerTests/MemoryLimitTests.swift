import Foundation
import LoopbackServer
import NavWatch
@testable import NavWatchCrawler
import NavWatchTestSupport
import Synchronization
import Testing

/// A web process over `WebViewConfiguration.webProcessMemoryLimit` is ended,
/// its page reported, and the crawl goes on.
@Suite("The web process memory limit", .serialized)
struct MemoryLimitTests {
    static let limit = 300

    /// The largest resident memory, in MB, any web process under this test
    /// process had while `body` ran, sampled every 10 ms.
    static func peakWebProcessMemory<T: Sendable>(during body: () async throws -> T) async throws -> (T, Int) {
        let peak = Mutex(0), running = Mutex(true)
        let sampler = Thread {
            let me = getpid()
            while running.withLock({ $0 }) {
                for (pid, process) in ProcessTree.descendants(of: me) where process.name.hasPrefix("WebKitWebProces") {
                    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                          let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) else { continue }
                    peak.withLock { $0 = max($0, kilobytes / 1024) }
                }
                usleep(10_000)
            }
        }
        sampler.start()
        defer { running.withLock { $0 = false } }
        let value = try await body()
        return (value, peak.withLock { $0 })
    }

    /// 600 MB of text, gzipped to some 600 KB.
    static func gzipBomb() throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "{ printf '<!doctype html><title>Bomb</title><p>'; head -c 629145600 /dev/zero | tr '\\0' a; } | gzip -1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(bytes)
    }

    @Test("a gzip bomb and an endless body end as crashed over the limit, once each; the next page loads")
    func bombAndEndlessBody() async throws {
        let bomb = try Self.gzipBomb()
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/": return .html(#"<!doctype html><title>Home</title><a href="/bomb">b</a><a href="/endless">e</a><a href="/after">a</a>"#)
            case "/bomb": return .respond(status: 200, headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: bomb)
            case "/endless":
                return .endless(start: Array("<!doctype html><title>Endless</title>".utf8),
                                chunk: Array(("<p>" + String(repeating: "x", count: 65_533)).utf8))
            default: return .html("<!doctype html><title>After</title>")
            }
        }
        defer { Task { await server.shutdown() } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("memory-limit-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        var configuration = CrawlConfiguration(seeds: [server.url("/")])
        configuration.obeyRobots = false
        configuration.timeout = .seconds(60)
        configuration.webView.webProcessMemoryLimit = Self.limit
        let crawler = try Crawler(configuration: configuration, store: store)
        let (_, peak) = try await Self.peakWebProcessMemory {
            try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        }
        let base = server.baseURL.absoluteString
        let reports = try await store.allReports()
        #expect(reports.map { report in
            "\(report.url.replacingOccurrences(of: base, with: "")) \(report.outcome.rawValue) \(report.attempts) "
                + "\(report.error.map { "\($0.domain) \($0.code): \($0.message)" } ?? "-")"
        }.sorted() == [
            "/ ok 1 -", "/after ok 1 -",
            "/bomb crashed 1 navwatch 8: the web process used more memory than its limit",
            "/endless crashed 1 navwatch 8: the web process used more memory than its limit",
        ])
        // Checked twenty times a second: what a page adds in that time at most.
        #expect(peak < Self.limit + Self.limit / 4, "a web process reached \(peak) MB")
    }
}
