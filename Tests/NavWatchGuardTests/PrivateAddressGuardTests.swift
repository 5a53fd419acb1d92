import AsyncHTTPClient
import Foundation
import LoopbackServer
import NIOCore
import NavWatchGuard
import NavWatchTestSupport
import Testing

@Suite struct PrivateAddressGuardTests {
    static let hello: LoopbackServer.Route = { request in
        request.path == "/moved" ? .redirect(to: "http://127.0.0.2/elsewhere") : .text("hello from \(request.uri)")
    }

    @Test func aPlainGetToAnAllowedHostGoesThrough() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(route: Self.hello) { server in
                let answer = try await withProxiedClient(proxy) { try await $0.fetch(server.url("/page?q=1")) }
                #expect(answer.status == 200)
                #expect(answer.body == "hello from /page?q=1")
                #expect(server.receivedRequests == ["/page?q=1"])
                #expect(proxy.blockedRequests.isEmpty)
                #expect(proxy.failures.isEmpty)
                #expect(proxy.verdict(for: server.url("/page?q=1")) == nil)
            }
        }
    }

    @Test func requestsToOtherLoopbackAddressesAreBlockedWithoutAConnection() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(host: "127.0.0.2", route: Self.hello) { second in
                try await withServer(route: Self.hello) { local in
                    let viaName = URL(string: "http://localhost:\(local.port)/by-name")!
                    // The proxy is told "127.0.0.1" only: "localhost" is another host.
                    let secondAnswer = try await RawClient.exchange(
                        "GET \(second.url("/secret?a=b")) HTTP/1.1\r\nHost: 127.0.0.2:\(second.port)\r\n\r\n", proxyPort: proxy.port)
                    let nameAnswer = try await RawClient.exchange(
                        "GET \(viaName) HTTP/1.1\r\nHost: localhost:\(local.port)\r\n\r\n", proxyPort: proxy.port)

                    // The first address this machine gives for localhost (127.0.0.1, or ::1 where /etc/hosts says so).
                    let localhostAddress = try #require(try SocketAddress.makeAddressResolvingHost("localhost", port: 0).ipAddress)
                    for (answer, host, address) in [(secondAnswer, "127.0.0.2", "127.0.0.2"), (nameAnswer, "localhost", localhostAddress)] {
                        #expect(answer.statusLine == "HTTP/1.1 403 Forbidden")
                        #expect(answer.header("X-Navwatch-Blocked") == "private-address")
                        #expect(answer.header("Content-Type") == "text/plain; charset=utf-8")
                        #expect(answer.header("Connection") == "close")
                        #expect(answer.header("Content-Length") == String(answer.body.count))
                        #expect(answer.bodyText.contains(host))
                        #expect(answer.bodyText.contains("resolves to \(address), a loopback address"))
                        #expect(answer.bodyText.hasSuffix("\n") && answer.bodyText.filter { $0 == "\n" }.count == 1)
                    }
                    #expect(second.receivedRequests.isEmpty)
                    #expect(local.receivedRequests.isEmpty)
                    let blocked = proxy.blockedRequests
                    #expect(blocked.map(\.host) == ["127.0.0.2", "localhost"])
                    #expect(blocked.map(\.port) == [second.port, local.port])
                    #expect(blocked.map(\.address) == ["127.0.0.2", localhostAddress])
                    #expect(blocked.map(\.kind) == [.loopback, .loopback])
                    #expect(blocked.map(\.url) == [second.url("/secret?a=b"), viaName])
                    #expect(proxy.failures.isEmpty)
                }
            }
        }
    }

    @Test func aBlockedHTTPRequestThroughAsyncHTTPClientIsATunnelRefused() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(host: "127.0.0.2", route: Self.hello) { server in
                // AsyncHTTPClient tunnels plain HTTP too: its CONNECT gets the 403.
                await #expect(throws: HTTPClientError.invalidProxyResponse) {
                    try await withProxiedClient(proxy) { try await $0.fetch(server.url("/x")) }
                }
                #expect(server.receivedRequests.isEmpty)
                #expect(proxy.blockedRequests.map(\.url) == [nil])
                guard case .blocked(let blocked) = proxy.verdict(for: server.url("/x")) else {
                    Issue.record("the http URL should match the refused tunnel to its host and port")
                    return
                }
                #expect(blocked.host == "127.0.0.2" && blocked.port == server.port)
            }
        }
    }

    @Test func aPlainGetInAbsoluteFormIsForwardedInOriginForm() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.keepAlive)
            let answer = try await RawClient.exchange(
                "GET http://127.0.0.1:\(origin.port)/until-close?q=1#f HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n"
                    + "Proxy-Connection: keep-alive\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nAccept: */*\r\n\r\n",
                proxyPort: proxy.port)
            #expect(answer.statusLine == "HTTP/1.1 200 OK")
            #expect(answer.bodyText == "until close")
            // Hop-by-hop fields are the proxy's: none reaches the origin, nor does `Connection: close`.
            #expect(origin.heads == ["GET /until-close?q=1 HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nAccept: */*"])
            await origin.shutdown()
        }
    }

    @Test func requestsOnOneConnectionShareOneOriginConnectionAndEachIsChecked() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.keepAlive), another = try await RawTestServer.start(.keepAlive)
            let blocked = try await RawTestServer.start(host: "127.0.0.2", .keepAlive)
            let client = try await RawClient.connect(port: proxy.port)
            func request(_ path: String, method: String = "GET", port: Int = origin.port, host: String = "127.0.0.1") -> String {
                "\(method) http://\(host):\(port)\(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nProxy-Connection: keep-alive\r\n\r\n"
            }
            let length = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n"
            try await client.send(request("/length"))
            #expect(try await client.read(through: "\r\n\r\n") + String(decoding: try await client.read(count: 6), as: UTF8.self)
                    == length + "length")
            try await client.send(request("/chunked"))
            #expect(try await client.read(through: "X-Done: 1\r\n\r\n") == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "4\r\nchun\r\n3;x=y\r\nked\r\n0\r\nX-Done: 1\r\n\r\n")
            try await client.send(request("/length", method: "HEAD"))
            #expect(try await client.read(through: "\r\n\r\n") == length)
            // Two requests in one write are answered in turn.
            try await client.send(request("/missing") + request("/length"))
            #expect(try await client.read(through: "\r\n\r\n") + String(decoding: try await client.read(count: 9), as: UTF8.self)
                    == "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")
            #expect(try await client.read(through: "\r\n\r\n") + String(decoding: try await client.read(count: 6), as: UTF8.self)
                    == length + "length")
            #expect(origin.connectionCount == 1)
            #expect(origin.heads == ["GET /length", "GET /chunked", "HEAD /length", "GET /missing", "GET /length"]
                .map { "\($0) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)" })
            // Another origin needs its own connection; going back to the first, a new one.
            try await client.send(request("/length", port: another.port) + request("/length"))
            for _ in 0..<2 { _ = try await client.read(through: "\r\n\r\n" ); _ = try await client.read(count: 6) }
            #expect(another.connectionCount == 1)
            #expect(origin.connectionCount == 2)
            // Every request is checked: one to a private address on the same connection is refused, unsent.
            try await client.send(request("/length", port: blocked.port, host: "127.0.0.2"))
            let refused = try RawResponse(try await client.readToEnd())
            #expect(refused.statusLine == "HTTP/1.1 403 Forbidden")
            #expect(refused.header("X-Navwatch-Blocked") == "private-address")
            #expect(blocked.connectionCount == 0)
            #expect(proxy.blockedRequests.map(\.url) == [URL(string: "http://127.0.0.2:\(blocked.port)/length")])
            await client.close()
            for server in [origin, another, blocked] { await server.shutdown() }
        }
    }

    @Test func aConnectToABlockedAddressIsRefusedWithoutAConnection() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let target = try await RawTestServer.start(host: "127.0.0.2", .echo)
            let answer = try await RawClient.exchange(
                "CONNECT 127.0.0.2:\(target.port) HTTP/1.1\r\nHost: 127.0.0.2:\(target.port)\r\n\r\n", proxyPort: proxy.port)
            #expect(answer.statusLine == "HTTP/1.1 403 Forbidden")
            #expect(answer.header("X-Navwatch-Blocked") == "private-address")
            #expect(target.connectionCount == 0)
            #expect(proxy.blockedRequests.map(\.url) == [nil])
            #expect(proxy.blockedRequests.map(\.host) == ["127.0.0.2"])
            await target.shutdown()
        }
    }

    @Test func anHTTPSRequestGoesThroughATunnelToAnAllowedHost() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(tls: .loopbackTest, route: Self.hello) { server in
                #expect(server.baseURL.scheme == "https")
                let answer = try await withProxiedClient(proxy) { try await $0.fetch(server.url("/secure")) }
                #expect(answer.status == 200)
                #expect(answer.body == "hello from /secure")
                #expect(server.receivedRequests == ["/secure"])
                #expect(proxy.verdict(for: server.url("/secure")) == nil)
            }
        }
    }

    @Test func anHTTPSRequestToABlockedHostFailsAtTheTunnel() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(host: "127.0.0.2", tls: .loopbackTest, route: Self.hello) { server in
                await #expect(throws: (any Error).self) {
                    try await withProxiedClient(proxy) { try await $0.fetch(server.url("/secure")) }
                }
                #expect(server.receivedRequests.isEmpty)
                let verdict = proxy.verdict(for: URL(string: "https://127.0.0.2:\(server.port)/any/path")!)
                guard case .blocked(let blocked) = verdict else {
                    Issue.record("expected a blocked verdict, got \(String(describing: verdict))")
                    return
                }
                #expect(blocked.host == "127.0.0.2" && blocked.port == server.port && blocked.url == nil)
                #expect(blocked.kind == .loopback)
                #expect(proxy.verdict(for: URL(string: "wss://127.0.0.2:\(server.port)/socket")!) == verdict)
                #expect(proxy.verdict(for: URL(string: "https://127.0.0.2:\(server.port + 1)/")!) == nil)
            }
        }
    }

    @Test func aPostBodyReachesTheOriginIntactWithTheHeadRewritten() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.mirrorRequest)
            let body = (0..<100_000).map { "\($0 % 10)" }.joined()
            let request = "POST http://127.0.0.1:\(origin.port)/submit?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n"
                + "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nConnection: keep-alive\r\n"
                + "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            let answer = try await RawClient.exchange(request, proxyPort: proxy.port)
            #expect(answer.status == 200)
            #expect(answer.bodyText == "POST /submit?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n"
                    + "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            await origin.shutdown()
        }
    }

    @Test func aPostThroughAnHTTPClientIsAnswered() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.mirrorRequest)
            let url = URL(string: "http://127.0.0.1:\(origin.port)/form")!
            let answer = try await withProxiedClient(proxy) { try await $0.fetch(url, method: .POST, body: Array("a=1&b=2".utf8)) }
            #expect(answer.status == 200)
            #expect(answer.body.hasPrefix("POST /form HTTP/1.1\r\n"))
            #expect(answer.body.hasSuffix("\r\n\r\na=1&b=2"))
            await origin.shutdown()
        }
    }

    @Test func aRedirectPassesThroughUnfollowed() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            try await withServer(route: Self.hello) { server in
                let answer = try await withProxiedClient(proxy) { try await $0.fetch(server.url("/moved")) }
                #expect(answer.status == 302)
                #expect(answer.headers["Location"] == ["http://127.0.0.2/elsewhere"])
                #expect(server.receivedRequests == ["/moved"])
                #expect(proxy.blockedRequests.isEmpty)
            }
        }
    }

    @Test func anUnresolvableNameIsABadGatewayOfKindDNS() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let answer = try await RawClient.exchange(
                "GET http://no-such-host.invalid/page HTTP/1.1\r\nHost: no-such-host.invalid\r\n\r\n", proxyPort: proxy.port)
            #expect(answer.statusLine == "HTTP/1.1 502 Bad Gateway")
            #expect(answer.header("X-Navwatch-Proxy-Error") == "dns")
            #expect(answer.header("Connection") == "close")
            #expect(proxy.failures.map(\.kind) == [.dns])
            #expect(proxy.failures.map(\.host) == ["no-such-host.invalid"])
            let url = URL(string: "http://NO-SUCH-HOST.invalid:80/page#top")!
            guard case .failed(let failure) = proxy.verdict(for: url) else {
                Issue.record("expected a failed verdict")
                return
            }
            #expect(failure.url == URL(string: "http://no-such-host.invalid/page"))
            #expect(failure.kind == .dns)
        }
    }

    @Test func aClosedPortOnAnAllowedHostIsABadGatewayOfKindConnectionRefused() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let closed = try RefusingPort()
            let answer = try await RawClient.exchange(
                "GET http://127.0.0.1:\(closed.port)/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", proxyPort: proxy.port)
            #expect(answer.status == 502)
            #expect(answer.header("X-Navwatch-Proxy-Error") == "connection-refused")
            #expect(proxy.failures.map(\.kind) == [.connectionRefused])
            #expect(proxy.failures.map(\.port) == [closed.port])
            let tunnel = try await RawClient.exchange("CONNECT 127.0.0.1:\(closed.port) HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
            #expect(tunnel.status == 502)
            #expect(tunnel.header("X-Navwatch-Proxy-Error") == "connection-refused")
            #expect(proxy.failures.map(\.url) == [URL(string: "http://127.0.0.1:\(closed.port)/"), nil])
        }
    }

    @Test func anAllowedNameMayReachItsPrivateAddress() async throws {
        try await withGuard(allowing: ["LOCALHOST."]) { proxy in
            try await withServer(route: Self.hello) { server in
                let url = URL(string: "http://localhost:\(server.port)/named")!
                let answer = try await withProxiedClient(proxy) { try await $0.fetch(url) }
                #expect(answer.status == 200)
                #expect(server.receivedRequests == ["/named"])
                // The name is allowed, not the address.
                let direct = try await RawClient.exchange("GET \(server.url("/direct")) HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
                #expect(direct.status == 403)
                #expect(server.receivedRequests == ["/named"])
            }
        }
    }

    @Test func ipv6LoopbackIsBlockedAndAllowedByItsLiteral() async throws {
        try await withGuard(allowing: ["[::1]"]) { proxy in
            try await withServer(host: "::1", route: Self.hello) { server in
                #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
                let answer = try await withProxiedClient(proxy) { try await $0.fetch(server.url("/six")) }
                #expect(answer.status == 200)
                #expect(answer.body == "hello from /six")
                let mapped = try await RawClient.exchange(
                    "GET http://[::ffff:127.0.0.1]:\(server.port)/ HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
                #expect(mapped.status == 403)
                #expect(proxy.blockedRequests.map(\.address) == ["::ffff:127.0.0.1"])
                #expect(proxy.blockedRequests.map(\.kind) == [.loopback])
            }
        }
        try await withGuard(allowing: []) { proxy in
            try await withServer(host: "::1", route: Self.hello) { server in
                let answer = try await RawClient.exchange("GET \(server.url("/six")) HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
                #expect(answer.status == 403)
                #expect(proxy.blockedRequests.map(\.address) == ["::1"])
                #expect(proxy.blockedRequests.map(\.host) == ["::1"])
                #expect(server.receivedRequests.isEmpty)
                #expect(proxy.verdict(for: server.url("/six")) != nil)
            }
        }
    }

    @Test func anUpgradeIsSplicedBothWays() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.upgradeThenEcho)
            let client = try await RawClient.connect(port: proxy.port)
            try await client.send("GET http://127.0.0.1:\(origin.port)/socket HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n"
                                  + "Upgrade: websocket\r\nConnection: Upgrade\r\nProxy-Connection: keep-alive\r\n\r\n")
            let head = try await client.read(through: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            for message in ["ping", String(repeating: "x", count: 50_000), "last"] {
                try await client.send(message)
                #expect(try await client.read(count: message.utf8.count) == Array(message.utf8))
            }
            #expect(origin.heads == ["GET /socket HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nUpgrade: websocket\r\n"
                                     + "Connection: Upgrade"])
            try await client.finishSending()
            #expect(try await client.readToEnd() == [])
            await client.close()
            await origin.shutdown()
        }
    }

    @Test func shutdownClosesOpenTunnels() async throws {
        let origin = try await RawTestServer.start(.echo)
        let proxy = try await PrivateAddressGuard.start(allowedHosts: ["127.0.0.1"])
        try await withDeadline("a tunnel ended by shutdown") {
            let client = try await RawClient.connect(port: proxy.port)
            try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
            #expect(try await client.read(through: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
            try await client.send("echo")
            #expect(try await client.read(count: 4) == Array("echo".utf8))
            await proxy.shutdown()
            #expect(try await client.readToEnd() == [])
            await proxy.shutdown()  // a second time does nothing
            await client.close()
        }
        await proxy.shutdown()
        await origin.shutdown()
    }

    @Test func aTunnelPassesAHalfCloseOnAndEndsWhenBothSidesAreDone() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let origin = try await RawTestServer.start(.echo)
            let client = try await RawClient.connect(port: proxy.port)
            try await client.send("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\nearly bytes")
            #expect(try await client.read(through: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
            #expect(try await client.read(count: 11) == Array("early bytes".utf8))
            try await client.send("more")
            try await client.finishSending()
            // The echo server shuts its output when its input ends: the end reaches us.
            #expect(try await client.readToEnd() == Array("more".utf8))
            await client.close()
            await origin.shutdown()
        }
    }

    @Test func malformedAndOversizedHeadsAreRefused() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let relative = try await RawClient.exchange("GET /relative HTTP/1.1\r\nHost: example.com\r\n\r\n", proxyPort: proxy.port)
            #expect(relative.statusLine == "HTTP/1.1 400 Bad Request")
            #expect(relative.header("Connection") == "close")
            let garbage = try await RawClient.exchange("\u{1}\u{2}\u{3}\r\n\r\n", proxyPort: proxy.port)
            #expect(garbage.status == 400)
            let huge = "GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 70_000))\r\n\r\n"
            let oversized = try await RawClient.exchange(huge, proxyPort: proxy.port)
            #expect(oversized.statusLine == "HTTP/1.1 431 Request Header Fields Too Large")
            let endless = try await RawClient.exchange(String(repeating: "b", count: 70_000), proxyPort: proxy.port)
            #expect(endless.status == 431)
            #expect(proxy.blockedRequests.isEmpty && proxy.failures.isEmpty)
        }
    }

    @Test func aClientThatSendsNoHeadIsDisconnected() async throws {
        try await withGuard(allowing: [], headTimeout: .milliseconds(300)) { proxy in
            let silent = try await RawClient.connect(port: proxy.port)
            #expect(try await silent.readToEnd() == [])
            await silent.close()
            let slow = try await RawClient.connect(port: proxy.port)
            try await slow.send("GET http://example.com/ HTTP/1.1\r\n")
            #expect(try await slow.readToEnd() == [])
            await slow.close()
        }
    }

    @Test func aRequestForTheGuardItselfIsRefused() async throws {
        try await withGuard(allowing: ["127.0.0.1"]) { proxy in
            let answer = try await RawClient.exchange("GET \(proxy.proxyURL)/loop HTTP/1.1\r\n\r\n", proxyPort: proxy.port)
            #expect(answer.status == 502)
            #expect(answer.header("X-Navwatch-Proxy-Error") == "other")
        }
    }

    @Test func theGuardListensOnLoopbackAndNormalizesItsAllowedHosts() async throws {
        try await withGuard(allowing: ["Example.COM.", "[::0001]", "10.0.0.1", "2130706433", "0x7f.0.0.2", "[::FFFF:a00:2]"]) { proxy in
            #expect(proxy.proxyURL == URL(string: "http://127.0.0.1:\(proxy.port)"))
            #expect(proxy.port > 0)
            #expect(proxy.allowedHosts == ["example.com", "::1", "10.0.0.1", "127.0.0.1", "127.0.0.2", "::ffff:a00:2"])
        }
    }

    @Test func eachAllowIsUndoneByOneDisallow() async throws {
        try await withGuard(allowing: []) { proxy in
            try await withServer(host: "127.0.0.2", route: Self.hello) { server in
                func status() async throws -> Int {
                    // One request a connection: the guard closes it after the answer.
                    try await RawClient.exchange("GET \(server.url("/")) HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n",
                                                 proxyPort: proxy.port).status
                }
                let status1 = try await status()
                #expect(status1 == 403)
                let mark = proxy.mark
                #expect(proxy.verdict(for: server.url("/")) != nil)
                #expect(proxy.verdict(for: server.url("/"), since: mark) == nil)
                proxy.allow(["127.0.0.2", "example.org"])
                proxy.allow(["127.0.0.2"])
                #expect(proxy.allowedHosts == ["127.0.0.2", "example.org"])
                let status2 = try await status()
                #expect(status2 == 200)
                proxy.disallow(["127.0.0.2", "example.org"])
                #expect(proxy.allowedHosts == ["127.0.0.2"])
                let status3 = try await status()
                #expect(status3 == 200)
                proxy.disallow(["127.0.0.2"])
                #expect(proxy.allowedHosts == [])
                let status4 = try await status()
                #expect(status4 == 403)
                #expect(proxy.verdict(for: server.url("/"), since: mark) != nil)
                #expect(server.receivedRequests == ["/", "/"])
            }
        }
    }
}
