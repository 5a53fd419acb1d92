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

    @Test("a crawl blocks the service unless --allow-private")
    func crawl() async throws {
        let (page, service) = try await Self.servers()
        defer { Task { await page.shutdown(); await service.shutdown() } }
        func outcomes(_ extra: [String]) async throws -> [String] {
            let db = temporaryPath("crawl.db")
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) } }
            let result = try await NavwatchProcess.run(["crawl", "--db", db, "--scope", "any", page.url("/").absoluteString] + extra)
            #expect(result.status == 0)
            return result.stdout.compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let url = object["url"] as? String, let outcome = object["outcome"] as? String else { return nil }
                let blocked = (object["resources"] as? [String: Any])?["blocked"] as? Int ?? -1
                return "\(url.replacingOccurrences(of: service.baseURL.absoluteString, with: "I").replacingOccurrences(of: page.baseURL.absoluteString, with: "P")) \(outcome) \(object["skip_reason"] as? String ?? "-") \(blocked)"
            }.sorted()
        }
        #expect(try await outcomes([]) == ["I/admin blocked private-address 0", "P/ ok - 1"])
        #expect(service.receivedRequests == [])
        #expect(try await outcomes(["--allow-private"]) == ["I/admin ok - 0", "P/ ok - 0"])
        #expect(Set(service.receivedRequests) == ["/robots.txt", "/pixel.png", "/admin"])
    }
}
