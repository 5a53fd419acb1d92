@testable import NavWatchGuard
import NavWatchTestSupport
import Testing

@Suite struct ProxyRequestHeadTests {
    private func parse(_ text: String) throws -> ProxyRequestHead {
        try ProxyRequestHead.parse(Array(text.utf8))
    }

    @Test func anAbsoluteURIGivesHostPortAndOriginForm() throws {
        let head = try parse("GET http://Example.COM:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080")
        #expect(head.method == "GET")
        #expect(head.target == .http(host: "Example.COM", port: 8080, authority: "Example.COM:8080", path: "/a/b?c=d"))
        #expect(head.headers.map(\.name) == ["Host"])
    }

    @Test func anAbsoluteURIWithoutPathOrPortDefaults() throws {
        #expect(try parse("GET http://example.com HTTP/1.1").target
                == .http(host: "example.com", port: 80, authority: "example.com", path: "/"))
        #expect(try parse("GET http://example.com?q HTTP/1.0").target
                == .http(host: "example.com", port: 80, authority: "example.com", path: "/?q"))
        #expect(try parse("GET http://user:pw@example.com/x HTTP/1.1").target
                == .http(host: "example.com", port: 80, authority: "example.com", path: "/x"))
    }

    @Test func ipv6LiteralsComeWithoutBrackets() throws {
        #expect(try parse("GET http://[::1]:81/x HTTP/1.1").target
                == .http(host: "::1", port: 81, authority: "[::1]:81", path: "/x"))
        #expect(try parse("CONNECT [fe80::1]:443 HTTP/1.1").target == .tunnel(host: "fe80::1", port: 443))
    }

    @Test func connectNamesHostAndPort() throws {
        #expect(try parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443").target
                == .tunnel(host: "example.com", port: 443))
    }

    @Test("malformed heads are refused", arguments: [
        "", "GET", "GET / HTTP/1.1", "GET http://x/ HTTP/2", "GET  http://x/ HTTP/1.1", "GET http://x/ HTTP/1.1 extra",
        "GET https://x/ HTTP/1.1", "GET http:///x HTTP/1.1", "GET http://x:0/ HTTP/1.1", "GET http://x:65536/ HTTP/1.1",
        "GET http://x:8a/ HTTP/1.1", "GET http://[::1/ HTTP/1.1", "GET http://[nothex]/ HTTP/1.1",
        "CONNECT x HTTP/1.1", "CONNECT :443 HTTP/1.1", "G(T http://x/ HTTP/1.1",
        "GET http://x/ HTTP/1.1\r\nno colon", "GET http://x/ HTTP/1.1\r\n folded: value", "GET http://x/ HTTP/1.1\r\n: empty",
        "GET http://x/\u{7F} HTTP/1.1", "GET http://a b/ HTTP/1.1",
    ])
    func malformed(text: String) {
        #expect(throws: ProxyRequestHead.Malformed.self) { try parse(text) }
    }

    @Test func theOriginHeadIsOriginFormWithoutProxyOrHopHeadersAndCloses() throws {
        let head = try parse("POST http://example.com:8080/submit?x=1 HTTP/1.1\r\n"
            + "Host: wrong.example\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n"
            + "Connection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\nX-Hop: 1\r\nContent-Length: 3\r\n"
            + "X-Bytes: caf\u{E9}")
        #expect(String(decoding: head.originHead(), as: UTF8.self)
                == "POST /submit?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 3\r\n"
                + "X-Bytes: caf\u{E9}\r\nConnection: close\r\n\r\n")
    }

    @Test func anUpgradeKeepsItsConnectionHeader() throws {
        let head = try parse("GET http://example.com/ws HTTP/1.1\r\nHost: example.com\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nProxy-Connection: keep-alive\r\nSec-WebSocket-Version: 13")
        #expect(head.isUpgrade)
        #expect(String(decoding: head.originHead(), as: UTF8.self)
                == "GET /ws HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n")
    }
}
