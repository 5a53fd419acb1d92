import Foundation
import LoopbackServer
import Synchronization
import Testing

@Suite("navwatch crawl --recheck-after: external links answered lately are not checked again")
struct RecheckTests {
    @Test("a link that answered below 400 within the time comes from the link cache or the baseline; others are checked")
    func recheck() async throws {
        let asked = Mutex<[String]>([])
        let external = try await LoopbackServer.start(route: { request in
            // robots.txt is asked once per crawl, cache or not.
            if request.path != "/robots.txt" { asked.withLock { $0.append("\(request.method) \(request.path)") } }
            return request.path == "/ok" ? .text("ok") : .text("gone", status: 404)
        })
        defer { Task { await external.shutdown() } }
        let links = #"<a href="\#(external.url("/ok").absoluteString)">OK</a> <a href="\#(external.url("/missing").absoluteString)">Missing</a>"#
        let site = try await LoopbackServer.start(route: { request in
            request.path == "/" ? .html("<!doctype html><title>Home</title><body>\(links)</body>") : .text("", status: 404)
        })
        defer { Task { await site.shutdown() } }
        let directory = temporaryPath("recheck")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let cache = directory + "/links.db"

        func crawl(_ name: String, _ arguments: [String]) async throws -> (asked: [String], checkedWith: [String: String], summary: [String]) {
            asked.withLock { $0 = [] }
            let result = try await NavwatchProcess.run(["crawl", "--db", directory + "/" + name, "--check-external",
                                                        "--external-delay", "0"] + arguments + [site.url("/").absoluteString])
            #expect(result.status == 0)
            var checkedWith: [String: String] = [:]
            for line in result.stdout {
                let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if let method = report["checked_with"] as? String {
                    checkedWith[URL(string: report["url"] as! String)!.path] = "\(method) \(report["status"] ?? "-")"
                }
            }
            return (asked.withLock { $0 }, checkedWith, result.stderr.split(separator: "\n").map(String.init))
        }

        let first = try await crawl("1.db", ["--recheck-after", "1h", "--link-cache", cache])
        #expect(Set(first.asked) == ["HEAD /ok", "HEAD /missing"])
        #expect(first.checkedWith == ["/ok": "HEAD 200", "/missing": "HEAD 404"])
        #expect(first.summary.contains("  links answered from the cache (checked within 1h): 0"))

        let second = try await crawl("2.db", ["--recheck-after", "1h", "--link-cache", cache])
        #expect(second.asked == ["HEAD /missing"])
        #expect(second.checkedWith == ["/ok": "cache 200", "/missing": "HEAD 404"])
        #expect(second.summary.contains("  links answered from the cache (checked within 1h): 1"))

        // Too old for 0 seconds: checked again.
        let third = try await crawl("3.db", ["--recheck-after", "0s", "--link-cache", cache])
        #expect(Set(third.asked) == ["HEAD /ok", "HEAD /missing"])

        // From the baseline, with no cache file.
        let fourth = try await crawl("4.db", ["--recheck-after", "7d", "--link-cache", directory + "/none.db", "--baseline",
                                              directory + "/3.db"])
        #expect(fourth.asked == ["HEAD /missing"])
        #expect(fourth.checkedWith["/ok"] == "cache 200")

        let without = try await NavwatchProcess.run(["crawl", "--db", directory + "/5.db", "--recheck-after", "1h",
                                                     site.url("/").absoluteString])
        #expect(without.status == 2)
        #expect(without.stderr.contains("--recheck-after needs --check-external"))
    }
}
