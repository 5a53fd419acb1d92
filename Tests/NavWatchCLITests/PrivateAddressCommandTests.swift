import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

@Suite("--block-private and --allow-private")
struct PrivateAddressCommandTests {
    /// A page on 127.0.0.1 with an image and a link on a service at 127.0.0.2.
    private static func servers() async throws -> (page: LoopbackServer, service: LoopbackServer) {
        let service = try await LoopbackServer.start(host: "127.0.0.2") { _ in .html("<title>Internal</title>") }
        let page = try await LoopbackServer.start { _ in
            .html(#"<title>Public</title><img src="\#(service.url("/pixel.png"))"><a href="\#(service.url("/admin"))">admin</a>"#)
        }
        return (page, service)
    }

    @Test("navwatch URL loads what the page asks for; with --block-private the service sees nothing and each refusal is named")
    func watch() async throws {
        let (page, service) = try await Self.servers()
        defer { Task { await page.shutdown(); await service.shutdown() } }
        let open = try await NavwatchProcess.run([page.url("/").absoluteString])
        #expect(open.status == 0)
        #expect(service.receivedRequests == ["/pixel.png"])

        let guarded = try await NavwatchProcess.run(["--block-private", page.url("/").absoluteString])
        #expect(guarded.status == 0)
        #expect(guarded.stderr.split(separator: "\n").filter { $0.hasPrefix("navwatch: blocked") }
                    == ["navwatch: blocked \(service.url("/pixel.png")): 127.0.0.2 is at 127.0.0.2 (loopback)"])
        #expect(service.receivedRequests == ["/pixel.png"])
    }

    @Test("--block-private names each refusal once, as it happens, with its URL: https tunnels and repeated requests too")
    func eachRefusalOnce() async throws {
        let service = try await LoopbackServer.start(host: "127.0.0.2") { _ in .html("<title>Internal</title>") }
        let port = service.port
        let page = try await LoopbackServer.start { _ in
            .html("""
                <title>Public</title><img src="http://127.0.0.2:\(port)/pixel.png"><img src="http://127.0.0.2:\(port)/pixel.png">
                <img src="https://127.0.0.2:\(port)/secure.png">
                <script>fetch("http://127.0.0.2:\(port)/pixel.png").catch(() => {})</script>
                """)
        }
        defer { Task { await page.shutdown(); await service.shutdown() } }
        let guarded = try await NavwatchProcess.run(["--block-private", "--json", page.url("/").absoluteString])
        #expect(guarded.status == 0)
        let refusals = guarded.stderr.split(separator: "\n").filter { $0.hasPrefix("navwatch: blocked") }
        #expect(refusals.sorted() == [
            "navwatch: blocked http://127.0.0.2:\(port)/pixel.png: 127.0.0.2 is at 127.0.0.2 (loopback)",
            "navwatch: blocked https://127.0.0.2:\(port)/secure.png: 127.0.0.2 is at 127.0.0.2 (loopback)",
        ])
        #expect(service.receivedRequests == [])
    }

    @Test("a URL whose host is an IPv4 address in another form is its own host: --block-private lets it through")
    func otherIPv4Forms() async throws {
        let page = try await LoopbackServer.start { _ in .html("<title>Public</title>") }
        defer { Task { await page.shutdown() } }
        for host in ["2130706433", "0x7f.1", "127.1"] {
            let result = try await NavwatchProcess.run(["--block-private", "--json", "http://\(host):\(page.port)/"])
            #expect(result.status == 0, "\(host): \(result.stderr)")
            #expect(result.stdout.contains { $0.contains(#""event":"finished""#) && $0.contains(#""status":200"#) }, "\(host)")
        }
    }

    @Test("a crawl blocks the service unless --allow-private")
    func crawl() async throws {
        let (page, service) = try await Self.servers()
        defer { Task { await page.shutdown(); await service.shutdown() } }
        func outcomes(_ extra: [String]) async throws -> [String] {
            let db = temporaryPath("crawl.db")
            defer { removeSQLiteDatabase(atPath: db) }
            let result = try await NavwatchProcess.run(["crawl", "--db", db, "--scope", "any", page.url("/").absoluteString] + extra)
            #expect(result.status == 0)
            return result.stdout.compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let url = object["url"] as? String, let outcome = object["outcome"] as? String else { return nil }
                let blocked = (object["resources"] as? [String: Any])?["blocked"] as? Int ?? -1
                return "\(url.replacingOccurrences(of: service.baseURL.absoluteString, with: "I").replacingOccurrences(of: page.baseURL.absoluteString, with: "P")) \(outcome) \(object["skip_reason"] as? String ?? "-") \(blocked)"
            }.sorted()
        }
        // The image is also checked as a resource of the page, through the guard.
        #expect(try await outcomes([]) == ["I/admin blocked private-address 0", "I/pixel.png blocked private-address 0", "P/ ok - 1"])
        #expect(service.receivedRequests == [])
        #expect(try await outcomes(["--allow-private"]) == ["I/admin ok - 0", "I/pixel.png ok - 0", "P/ ok - 0"])
        #expect(Set(service.receivedRequests) == ["/robots.txt", "/pixel.png", "/admin"])
    }
}
