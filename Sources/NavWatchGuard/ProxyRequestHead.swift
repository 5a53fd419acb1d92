import Foundation

/// The head of one request to the proxy, parsed from its bytes: the request
/// line and the header fields. Bytes are read as ISO-8859-1, so that every
/// byte of a field value is forwarded unchanged.
struct ProxyRequestHead: Equatable {
    /// Where a request goes.
    enum Target: Equatable {
        /// `CONNECT host:port`: a tunnel.
        case tunnel(host: String, port: Int)
        /// `METHOD http://authority/path?query`: a plain-HTTP request.
        /// `authority` is as sent, without user info; `path` is the
        /// origin form (`/path?query`, at least `/`).
        case http(host: String, port: Int, authority: String, path: String)

        /// The host without brackets, as sent (not yet normalized).
        var host: String {
            switch self {
            case .tunnel(let host, _), .http(let host, _, _, _): host
            }
        }

        var port: Int {
            switch self {
            case .tunnel(_, let port), .http(_, let port, _, _): port
            }
        }
    }

    /// Why a head cannot be served; the proxy answers `400 Bad Request`.
    struct Malformed: Error, Equatable {
        var reason: String
    }

    var method: String
    var target: Target
    /// The request target as sent (`http://a/b`, `a:443`).
    var rawTarget: String
    var version: String
    var headers: [(name: String, value: String)]

    static func == (lhs: ProxyRequestHead, rhs: ProxyRequestHead) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.rawTarget == rhs.rawTarget
            && lhs.version == rhs.version && lhs.headers.elementsEqual(rhs.headers, by: { $0 == $1 })
    }

    /// Parses `bytes`, a head up to and without its final empty line.
    static func parse(_ bytes: some Collection<UInt8>) throws(Malformed) -> ProxyRequestHead {
        // Split as bytes: splitting the text would break it into `Character`s first.
        var lines = HTTPText.lines(ArraySlice(bytes)).map { Substring(latin1($0)) }
        guard !lines.isEmpty else { throw Malformed(reason: "empty head") }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(isTokenCharacter) else {
            throw Malformed(reason: "bad request line")
        }
        let method = String(parts[0])
        let rawTarget = String(parts[1])
        let version = String(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw Malformed(reason: "unsupported version") }
        guard !rawTarget.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            throw Malformed(reason: "bad characters in the request target")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(reason: "header line without a colon") }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { throw Malformed(reason: "bad header name") }
            guard !line.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw Malformed(reason: "bad characters in a header")
            }
            let value = String(HTTPText.trimmed(line[line.index(after: colon)...], HTTPText.isSpaceOrTab))
            headers.append((String(name), value))
        }
        let target: Target
        if method == "CONNECT" {
            let (host, port) = try authority(rawTarget, defaultPort: nil)
            target = .tunnel(host: host, port: port)
        } else {
            target = try absoluteTarget(rawTarget)
        }
        return ProxyRequestHead(method: method, target: target, rawTarget: rawTarget, version: version, headers: headers)
    }

    /// `bytes` read as ISO-8859-1.
    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Whether the request asks to switch protocols (WebSocket): an
    /// `Upgrade` header and `upgrade` among the `Connection` tokens.
    var isUpgrade: Bool {
        headers.contains { $0.name.lowercased() == "upgrade" } && connectionTokens.contains("upgrade")
    }

    /// The length of the request's body when the request may share its
    /// connections with other requests: plain HTTP/1.1, no upgrade, no
    /// `Connection: close`, no `Transfer-Encoding`, and no `Content-Length`
    /// (0) or one length (however often repeated). nil otherwise.
    var sharedConnectionBodyLength: Int? {
        guard case .http = target, version == "HTTP/1.1", !isUpgrade, !connectionTokens.contains("close") else { return nil }
        var length: Int?
        for (name, value) in headers {
            switch name.lowercased() {
            case "transfer-encoding":
                return nil
            case "content-length":
                guard !value.isEmpty, value.count <= 13, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                      let value = Int(value), length == nil || length == value else { return nil }
                length = value
            default:
                break
            }
        }
        return length ?? 0
    }

    /// The head to send to the origin for a plain-HTTP request: origin-form
    /// request line, `Host` from the target, no proxy headers, and
    /// `Connection: close` when `closing` unless it is an upgrade (whose
    /// `Connection` header is kept). Other hop-by-hop headers (`Keep-Alive`
    /// and those the `Connection` header names) are dropped along with
    /// `Connection`.
    func originHead(closing: Bool = true) -> [UInt8] {
        guard case .http(_, _, let authority, let path) = target else {
            preconditionFailure("originHead() is for plain-HTTP requests; a tunnel has no head to forward")
        }
        let upgrade = isUpgrade
        var dropped: Set<String> = ["proxy-connection", "proxy-authorization", "host"]
        if !upgrade { dropped.formUnion(["connection", "keep-alive"]); dropped.formUnion(connectionTokens) }
        var text = "\(method) \(path) \(version)\r\nHost: \(authority)\r\n"
        for (name, value) in headers where !dropped.contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        if !upgrade && closing { text += "Connection: close\r\n" }
        text += "\r\n"
        return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    }

    /// The lowercased tokens of every `Connection` header.
    private var connectionTokens: Set<String> {
        Set(headers.filter { $0.name.lowercased() == "connection" }
            .flatMap { $0.value.split(separator: ",") }
            .map { HTTPText.trimmed($0, HTTPText.isLatin1Whitespace).lowercased() })
    }

    /// `http://[userinfo@]host[:port][/path][?query]` (or `ws://`).
    private static func absoluteTarget(_ raw: String) throws(Malformed) -> Target {
        let lowered = raw.lowercased()
        let rest: Substring
        if lowered.hasPrefix("http://") {
            rest = raw.dropFirst("http://".count)
        } else if lowered.hasPrefix("ws://") {
            rest = raw.dropFirst("ws://".count)
        } else if lowered.hasPrefix("https://") || lowered.hasPrefix("wss://") {
            throw Malformed(reason: "https goes through CONNECT, not an absolute URI")
        } else {
            throw Malformed(reason: "not a proxy request: the target must be an absolute http URI")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if !path.hasPrefix("/") { path = "/" + path }
        let (host, port) = try self.authority(String(authority), defaultPort: 80)
        return .http(host: host, port: port, authority: String(authority), path: path)
    }

    /// `host:port`, `[v6]:port`, or with `defaultPort`, just the host.
    private static func authority(_ text: String, defaultPort: Int?) throws(Malformed) -> (String, Int) {
        let host: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw Malformed(reason: "unclosed IPv6 bracket") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw Malformed(reason: "junk after an IPv6 address")
            }
            guard HostName.ipAddress(String(host)) != nil, host.contains(":") else {
                throw Malformed(reason: "not an IPv6 address in brackets")
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text)
            portText = nil
        }
        guard !host.isEmpty else { throw Malformed(reason: "no host") }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:%~".contains($0) }),
              host.unicodeScalars.allSatisfy(\.isASCII) else {
            throw Malformed(reason: "bad characters in the host")
        }
        let port: Int
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy(\.isASCII), let value = Int(portText),
                  portText.allSatisfy(\.isNumber), (1...65535).contains(value) else {
                throw Malformed(reason: "bad port")
            }
            port = value
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw Malformed(reason: "CONNECT needs a port")
        }
        return (String(host), port)
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
            || "!#$%&'*+-.^_`|~".contains(character)
    }
}
