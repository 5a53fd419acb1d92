import Foundation
@testable import NavWatchCrawler
import NavWatchGuard
import Testing

/// URL canonicalisation of any text `URL(string:)` accepts: a key is its own
/// key (as a URL and as text), keeps the scheme (lower-cased), has no
/// fragment, no default port, a lower-case host, no dot segments, and
/// upper-case escapes of reserved bytes only; ways of writing the same URL
/// differently give the same key.
@Suite struct URLCanonicalizerFuzzTests {
    @Test("URL canonicalisation under generated input")
    func urlCanonicalizer() {
        FuzzTarget(name: "url", dictionary: Self.dictionary, generators: [{ Array(Self.parts(&$0).render().utf8) }],
                   oracles: [Self.sameURL], maximumSize: 4 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "http://", "https://", "HTTP://", "ws://", "ftp://", "file:///", "mailto:", "data:,", "//", "[", "]", "[::1]",
        "[::ffff:127.0.0.1]", "[fe80::1%25eth0]", "0x7f.1", "0177.0.0.1", "2130706433", "127.1", "0x7F000001", "1.2.3.4.",
        ":80", ":443", ":0", ":", "@", "user:pw@", "/./", "/../", "%2e", "%2E%2e", "%7e", "%7E", "%2F", "%41", "%", "%%",
        "%zz", "?", "#", "&", "=", "xn--", "\u{E9}", "\u{1F600}", ";", "\\", " ", "%00", "%C3%A9",
    ]

    private static let defaultPorts = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func check(_ bytes: [UInt8]) throws -> Bool {
        guard let url = URL(string: String(decoding: bytes, as: UTF8.self)) else { return false }
        guard let canonical = URLCanonicalizer.canonical(url) else {
            // Nil only without a scheme, with an empty host, with a host
            // WebKit refuses (it ends in a number but is no IPv4 address, or
            // is a bad IPv6 literal, zones included: `HostName.canonical`), or
            // with a host Foundation cannot rebuild: one with escapes of bytes
            // no host has, or `xn--` labels (punycode it may not read back).
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
            let written = url.host(percentEncoded: true) ?? "", host = components?.percentEncodedHost ?? written
            let refused = HostName.canonical(URLCanonicalizer.normalisePercentEncoding(components?.encodedHost ?? host)) == nil
            try require(components?.scheme == nil || host.isEmpty || refused || Self.cannotRebuild(host, written: written),
                        "\(url.absoluteString) has a scheme and a host (\(host)), yet no key")
            return false
        }
        let key = canonical.absoluteString
        try require(canonical.fragment == nil && !key.contains("#"), "the key \(key) has a fragment")
        try require(canonical.scheme == url.scheme?.lowercased(), "the key \(key) has another scheme than \(url.absoluteString)")
        try require((canonical.host == nil) == (url.host == nil), "the key \(key) has \(url.host == nil ? "a" : "no") host")
        try require(URLCanonicalizer.canonical(canonical)?.absoluteString == key,
                    "the key \(key) is not its own key: \(URLCanonicalizer.canonical(canonical)?.absoluteString ?? "nil")")
        try require(URLCanonicalizer.key(key) == key, "the text \(key) has the key \(URLCanonicalizer.key(key) ?? "nil")")
        guard let components = URLComponents(url: canonical, resolvingAgainstBaseURL: true) else {
            throw PropertyFailure(description: "the key \(key) has no components")
        }
        if let host = canonical.host(percentEncoded: true) {
            try require(host == host.lowercased(), "the key \(key) has an upper-case host")
        }
        if let scheme = components.scheme, let port = components.port {
            try require(port != defaultPorts[scheme], "the key \(key) keeps the default port")
        }
        if components.host != nil {
            let path = components.percentEncodedPath
            try require(path.hasPrefix("/"), "the key \(key) has the path \(path)")
            try require(!path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." },
                        "the key \(key) has dot segments")
        }
        for part in [components.percentEncodedPath, components.percentEncodedQuery ?? ""] {
            try requireNormalEscapes(part, key)
        }
        return true
    }

    /// Whether Foundation may not read `host` (percent-encoded) back as it
    /// wrote it, as `URLCanonicalizer.canonical` documents: escapes of bytes
    /// RFC 3986 allows in no host, or that are not UTF-8; Unicode that IDNA refuses (beside
    /// an empty label, or one that starts or ends with `-` or has `--` third
    /// and fourth); `xn--` labels;
    /// labels longer than 63 characters (hosts longer than 253); IPv6 zones.
    private static func cannotRebuild(_ host: String, written: String) -> Bool {
        if host.hasPrefix("[") { return host.contains("%25") }
        guard let decoded = String(validating: percentDecoded(host), as: UTF8.self) else { return true }
        let labels = decoded.split(separator: ".", omittingEmptySubsequences: false).dropLast(decoded.hasSuffix(".") ? 1 : 0)
        return (written + "." + decoded).lowercased().split(separator: ".").contains { $0.hasPrefix("xn--") }
            || labels.contains { $0.utf8.count > 63 } || decoded.utf8.count > 253
            || decoded.unicodeScalars.contains { $0.isASCII && !hostCharacters.contains($0) }
            || !decoded.allSatisfy(\.isASCII)
                && labels.contains { $0.isEmpty || $0.hasPrefix("-") || $0.hasSuffix("-") || $0.dropFirst(2).hasPrefix("--") }
    }

    /// The ASCII of RFC 3986's reg-name, unreserved characters and sub-delims.
    private static let hostCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=".unicodeScalars)

    private static func percentDecoded(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = [], index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// Every escape is upper-case hex of a byte that is not unreserved.
    private static func requireNormalEscapes(_ text: String, _ key: String) throws {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16) {
                try require(!bytes[index + 1...index + 2].contains { (0x61...0x66).contains($0) }, "the key \(key) has lower-case hex")
                try require(!unreserved.contains(value), "the key \(key) escapes an unreserved character")
                index += 3
            } else {
                index += 1
            }
        }
    }

    /// A URL from parts, written plainly or in an equal but odd way.
    struct Parts: Sendable {
        var scheme: String, userInfo: String, host: String, port: String, path: [String], query: String?, fragment: String?

        func render(upperCase: Bool = false, defaultPort: Bool = false, encodeUnreserved: Bool = false,
                    dotSegments: Bool = false, fragment otherFragment: String? = nil) -> String {
            var text = (upperCase ? scheme.uppercased() : scheme) + "://" + userInfo + (upperCase ? host.uppercased() : host)
            text += defaultPort && port.isEmpty ? ":\(URLCanonicalizerFuzzTests.defaultPorts[scheme]!)" : port
            var segments = path
            if encodeUnreserved { segments = segments.map { $0.replacingOccurrences(of: "a", with: "%61") } }
            if dotSegments { segments = ["zz", "..", "."] + segments }
            text += segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
            if let query { text += "?" + query }
            if let fragment = otherFragment ?? fragment { text += "#" + fragment }
            return text
        }
    }

    static func parts(_ random: inout FuzzRandom) -> Parts {
        Parts(scheme: random.pick(["http", "https", "http", "https", "ws", "ftp"]),
              userInfo: random.pick(["", "", "", "user@", "user:pw@"]),
              host: random.pick([
                  "example.org", "a.example.org", "Example.ORG", "xn--bcher-kva.example", "127.0.0.1", "10.0.0.1",
                  "2130706433", "0x7f.1", "0x7F000001", "0177.0.0.1", "127.1", "0.0.0.0", "255.255.255.255", "1.2.3.4.",
                  "[::1]", "[::]", "[FE80::1]", "[::ffff:127.0.0.1]", "[2001:db8::1:0:0:1]", "[fe80::1%25eth0]",
                  "%41.example", "a-b_c.example", "localhost", "example.org.",
              ]),
              port: random.pick(["", "", "", ":8080", ":1", ":65535"]),
              path: (0..<random.below(5)).map { _ in
                  random.pick(["a", "b", "docs", "~me", "%7Euser", "caf%C3%A9", "a.b", ".", "..", "%2e", "%2E%2e", "", "x%2Fy",
                               "sp%20ace", "%3B", "a;b", "@", "%00"])
              },
              query: random.pick([nil, "q=1", "a=b&c=d", "x=%2F", "s=%7e", "", "%zz"]),
              fragment: random.pick([nil, "top", "", "a/b"]))
    }

    /// The same URL written five odd ways has one key.
    @Sendable static func sameURL(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let parts = parts(&random)
        return (Array(parts.render().utf8), { _ in
            let key = URLCanonicalizer.key(parts.render())
            for variant in [parts.render(upperCase: true), parts.render(defaultPort: true), parts.render(encodeUnreserved: true),
                            parts.render(dotSegments: true), parts.render(fragment: "elsewhere")] {
                let other = URLCanonicalizer.key(variant)
                try require(other == key, "\(variant) has the key \(other ?? "nil"), \(parts.render()) has \(key ?? "nil")")
            }
        })
    }
}
