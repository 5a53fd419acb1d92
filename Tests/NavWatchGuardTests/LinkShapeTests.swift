import Foundation
import LoopbackServer
@testable import NavWatchGuard
import Testing

/// A guard with a `LinkShape`: what crosses it takes the time the link
/// would, and nothing is lost however long it is held.
@Suite("A shaped guard: round trips, a shared bandwidth, and nothing lost while bytes are held")
struct LinkShapeTests {
    /// `/N` answers N bytes of `x`.
    private static let sized: LoopbackServer.Route = { request in
        .text(String(repeating: "x", count: Int(request.path.dropFirst()) ?? 0))
    }

    @Test("a response held longer than the head timeout arrives whole, and the connection then serves the next request")
    func heldLongerThanTheHeadTimeout() async throws {
        try await withServer(route: Self.sized) { server in
            // 150 000 bytes at 100 000 bytes a second: 1.5 s, five head timeouts.
            let link = LinkShape(roundTrip: .zero, downBytesPerSecond: 100_000, upBytesPerSecond: nil)
            try await withGuard(allowing: ["127.0.0.1"], headTimeout: .milliseconds(300), link: link) { proxy in
                let client = try await RawClient.connect(port: proxy.port)
                let clock = ContinuousClock(), start = clock.now
                for _ in 1...2 {
                    try await client.send("GET \(server.url("/150000")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    let head = try await client.read(through: "\r\n\r\n")
                    #expect(head.hasPrefix("HTTP/1.1 200") && head.lowercased().contains("content-length: 150000"), "\(head)")
                    #expect(try await client.read(count: 150_000) == Array(repeating: UInt8(ascii: "x"), count: 150_000))
                }
                let elapsed = clock.now - start
                #expect(elapsed >= .milliseconds(3000) && elapsed < .milliseconds(3750), "\(elapsed)")
                await client.close()
            }
        }
    }

    @Test("two downloads at once share the bandwidth; each byte waits half a round trip, and a new connection one more")
    func sharedBandwidthAndRoundTrips() async throws {
        try await withServer(route: Self.sized) { server in
            let link = LinkShape(roundTrip: .milliseconds(200), downBytesPerSecond: 200_000, upBytesPerSecond: nil)
            try await withGuard(allowing: ["127.0.0.1"], link: link) { proxy in
                let clock = ContinuousClock(), start = clock.now
                // Each alone would take 0.5 s of bandwidth; together they take a second.
                let times = try await withThrowingTaskGroup(of: Duration.self) { group in
                    for _ in 1...2 {
                        group.addTask {
                            let answer = try await RawClient.exchange("GET \(server.url("/100000")) HTTP/1.1\r\nConnection: close\r\n\r\n",
                                                                      proxyPort: proxy.port)
                            #expect(answer.status == 200 && answer.body.count == 100_000)
                            return clock.now - start
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                // A round trip to connect, one for the request and its first byte, then the bytes of both.
                let slowest = try #require(times.max())
                #expect(slowest >= .milliseconds(1400) && slowest < .milliseconds(1750), "\(times)")
            }
        }
    }

    @Test("an error answer comes half a round trip late, whole")
    func errorAnswers() async throws {
        let link = LinkShape(roundTrip: .milliseconds(400), downBytesPerSecond: 10_000, upBytesPerSecond: nil)
        try await withGuard(allowing: [], link: link) { proxy in
            let clock = ContinuousClock(), start = clock.now
            let answer = try await RawClient.exchange("GET http://127.0.0.2:9/ HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
            #expect(answer.status == 403 && answer.header("X-Navwatch-Blocked") == "private-address")
            #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix("navwatch blocked a request to 127.0.0.2:9"))
            let elapsed = clock.now - start
            #expect(elapsed >= .milliseconds(200) && elapsed < .milliseconds(500), "\(elapsed)")
        }
    }
}
