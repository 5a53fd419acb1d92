@testable import NavWatchGuard
import Testing

/// The guard's request-head parser: either `Malformed` or a head whose parts
/// are what its documentation promises, and whose origin head parses back to
/// the same target and headers.
@Suite struct RequestHeadFuzzTests {
    @Test("the request-head parser under generated input")
    func requestHead() {
        FuzzTarget(name: "request-head", dictionary: Self.dictionary, generators: [Self.generated],
                   maximumSize: 64 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "GET ", "CONNECT ", "POST ", " HTTP/1.1", " HTTP/1.0", "HTTP/2", "http://", "ws://", "https://", "HTTP://",
        "\r\n", "\r", "\n", ": ", ":", "[", "]", "[::1]", "[fe80::1%25eth0]", "::ffff:127.0.0.1", "127.0.0.1", "0x7f.1",
        "2130706433", ":80", ":443", ":0", ":65535", ":65536", ":99999", "@", "user:pw@", "/", "?", "#", "%", "%00",
        "Host: ", "Connection: ", "Upgrade: websocket", "keep-alive", "close", "upgrade", "Proxy-Connection: ",
        "Proxy-Authorization: ", "Keep-Alive: ", "\u{E9}", " \t", "\0",
    ]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let head: ProxyRequestHead
        do { head = try ProxyRequestHead.parse(bytes) } catch { return false }   // typed: only `Malformed`
        let text = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        let requestLine = text.components(separatedBy: "\r\n")[0]
        try require(requestLine == "\(head.method) \(head.rawTarget) \(head.version)", "the request line is not method, target and version")
        try require(!head.method.isEmpty && head.method.utf8.allSatisfy(isToken), "the method \(head.method) is not a token")
        try require(["HTTP/1.1", "HTTP/1.0"].contains(head.version), "the version is \(head.version)")
        try require(head.rawTarget.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "the target has spaces or controls")
        for (name, value) in head.headers {
            try require(!name.isEmpty && name.utf8.allSatisfy(isToken), "the header name \(name) is not a token")
            try require(!value.unicodeScalars.contains { ["\r", "\n", "\0"].contains($0) }, "the value of \(name) has CR, LF or NUL")
            try require(value.first != " " && value.first != "\t" && value.last != " " && value.last != "\t",
                        "the value of \(name) is not trimmed")
            try require(value.unicodeScalars.allSatisfy { $0.value <= 0xFF }, "the value of \(name) is not ISO-8859-1")
        }
        let host = head.target.host, port = head.target.port
        try require((1...65535).contains(port), "the port is \(port)")
        try require(!host.isEmpty, "the host is empty")
        try require(host.utf8.allSatisfy { isAlphanumeric($0) || Array("-._:%~".utf8).contains($0) },
                    "the host \(host) has other characters than letters, digits and -._:%~")
        try require(!host.contains(":") || HostName.ipAddress(host) != nil, "the host \(host) has a colon but is no IPv6 address")
        _ = HostName.normalized(host)
        switch head.target {
        case .tunnel:
            try require(head.method == "CONNECT", "a tunnel for \(head.method)")
        case .http(_, _, let authority, let path):
            try require(head.method != "CONNECT", "CONNECT with an absolute URI")
            try require(path.hasPrefix("/") && !path.contains("#"), "the path \(path) is not origin form")
            try require(!authority.contains("@") && !authority.contains("/"), "the authority \(authority) has user info or a path")
            try checkOriginHead(of: head, authority: authority, path: path)
        }
        return true
    }

    /// The origin head, its request line turned back into absolute form,
    /// parses to the same target with the headers `originHead()` promises.
    private static func checkOriginHead(of head: ProxyRequestHead, authority: String, path: String) throws {
        var origin = head.originHead()
        try require(origin.suffix(4).elementsEqual([13, 10, 13, 10]), "the origin head does not end with an empty line")
        origin.removeLast(4)
        let prefix = Array("\(head.method) \(path) \(head.version)\r\n".utf8)
        try require(origin.starts(with: prefix), "the origin head does not start with \(head.method) \(path) \(head.version)")
        let absolute = Array("\(head.method) http://\(authority)\(path) \(head.version)\r\n".utf8) + origin.dropFirst(prefix.count)
        let again: ProxyRequestHead
        do { again = try ProxyRequestHead.parse(absolute) } catch {
            throw PropertyFailure(description: "the origin head does not parse: \(error.reason): \(Escaped(absolute))")
        }
        try require(again.target == head.target, "the origin head parses to \(again.target), not \(head.target)")
        let upgrade = head.isUpgrade
        let tokens = Set(head.headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        var dropped: Set<String> = ["proxy-connection", "proxy-authorization", "host"]
        if !upgrade { dropped.formUnion(["connection", "keep-alive"]); dropped.formUnion(tokens) }
        let expected: [(name: String, value: String)] = [("Host", authority)] + head.headers.filter { !dropped.contains($0.name.lowercased()) }
            + (upgrade ? [] : [("Connection", "close")])
        try require(again.headers.elementsEqual(expected, by: { $0.name == $1.name && $0.value == $1.value }), "the origin head's headers are \(again.headers), not \(expected)")
        try require(again.isUpgrade == upgrade, "the origin head is \(upgrade ? "no" : "an") upgrade")
    }

    private static func isToken(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// A head from parts: a method, an absolute-form or CONNECT target with
    /// odd hosts and ports, and headers with odd names, values and spacing.
    @Sendable static func generated(_ random: inout FuzzRandom) -> [UInt8] {
        let connect = random.oneIn(3)
        let method = connect ? random.pick(["CONNECT", "CONNECT", "connect"]) : random.pick(["GET", "POST", "HEAD", "OPTIONS", "PUT", "X-Y", "G\u{E9}T", ""])
        let host = random.pick(["example.com", "EXAMPLE.com", "127.0.0.1", "[::1]", "[::ffff:10.0.0.1]", "[fe80::1%25eth0]", "[fe80::1]",
                                "localhost.", "a_b.example", "xn--bcher-kva.example", "0x7f.1", "2130706433", "[v1.x]", "::1",
                                "", "[::1", "a%2eb", "ex ample", "\u{E9}.example", "[1.2.3.4]", "1.2.3.4.5", "-.~"])
        let port = random.pick(["", ":80", ":443", ":8080", ":", ":0", ":65535", ":65536", ":+80", ":080", ":1a", ":00000443", ":99999"])
        var target: String
        if connect {
            target = host + port
        } else {
            let scheme = random.pick(["http://", "HTTP://", "ws://", "https://", "ftp://", "", "http:/"])
            let userInfo = random.pick(["", "", "user@", "user:pw@", "@", "a@b@"])
            let path = random.pick(["", "/", "/a/b", "/a?b=c", "?q", "#frag", "/a#b?c", "/%2e%2E/", "//x", "/a b"])
            target = scheme + userInfo + host + port + path
        }
        if random.oneIn(10) { target = random.pick(["*", "/", "/index.html"]) }
        var text = method + random.pick([" ", " ", " ", "  ", "\t"]) + target + " " + random.pick(["HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2", "http/1.1"])
        for _ in 0..<random.below(6) {
            let name = random.pick(["Host", "Connection", "Upgrade", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization",
                                    "X-Hop", "Content-Length", "x", "Bad Name", "", "N\u{E9}"])
            let value = random.pick(["", "close", "keep-alive, X-Hop", "Upgrade", "websocket", " spaced \t", "caf\u{E9}", "a:b",
                                     "a\rb", "a\0b", "upgrade, close", "\u{FF}"])
            text += "\r\n" + name + random.pick([":", ": ", " :", ":\t"]) + value
        }
        if random.oneIn(20) { text += random.pick(["\r\n", "\r\n\r\n", "\n"]) }
        return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    }
}
