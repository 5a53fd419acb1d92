import Foundation
import NavWatchGuard

/// Turns a URL into the key the crawler deduplicates on, following RFC 3986
/// normalisation: the fragment is dropped, the scheme is lower-cased, the
/// host is written as WebKit writes it (`HostName.canonical`: lower-cased,
/// `2130706433` and `0x7f.1` as `127.0.0.1`, `[0:0::1]` as `[::1]`),
/// the default port is dropped, an empty path becomes `/`, dot segments are
/// removed, percent-encoded unreserved characters are decoded and the other
/// escapes use upper-case hex. Equal URLs get equal keys; a key is its own key.
package enum URLCanonicalizer {
    /// The canonical form of `url`, or nil when it has no scheme, an empty
    /// host, or a host WebKit would refuse (`1.2.3.999`, an invalid IPv6 literal).
    package static func canonical(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased() else { return nil }
        // Read before any change: Foundation drops a host it cannot decode
        // (`xn--a.example`) when the components change.
        let originalHost = components.encodedHost
        components.scheme = scheme
        components.fragment = nil
        // `encodedHost`, not `percentEncodedHost`, which decodes punycode to
        // Unicode that may not encode again (`xn--bcher-kva.-xample`); and set
        // only when it changes: Foundation reads some `xn--` labels it wrote
        // differently (`xn--a` has no Unicode form).
        if let host = originalHost {
            guard let canonicalHost = HostName.canonical(normalisePercentEncoding(host)) else { return nil }
            let written = canonicalHost.contains(":") ? "[\(canonicalHost)]" : canonicalHost
            if written != components.encodedHost { components.encodedHost = written }
            // A host Foundation cannot decode (`xn--a..x`) is lost by the
            // next change of the components: such a URL has no key.
            guard components.percentEncodedHost != nil else { return nil }
        }
        if components.port == defaultPorts[scheme] { components.port = nil }
        var path = normalisePercentEncoding(components.percentEncodedPath)
        if components.host != nil {
            path = removeDotSegments(path)
            if path.isEmpty { path = "/" }
        }
        components.percentEncodedPath = path
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = normalisePercentEncoding(query)
        }
        return components.url
    }

    /// `scheme://host[:port]` of `url`, with an IPv6 host in brackets
    /// (`http://[::1]:8080`) and the host as `canonical` writes it; nil
    /// when `url` has no scheme or host. The port is kept as written.
    package static func origin(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), let rawHost = components.encodedHost,
              let host = HostName.canonical(normalisePercentEncoding(rawHost)) else { return nil }
        let authority = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(authority)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// The document a URL's text names: the text before its fragment.
    static func document(_ text: String) -> Substring {
        text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
    }

    /// The canonical form of `text` as a string, or nil when it is not a URL.
    package static func key(_ text: String) -> String? {
        URL(string: text).flatMap(canonical)?.absoluteString
    }

    /// The port a URL of `scheme` (lower-case) has when it names none; nil for a scheme without one.
    package static func defaultPort(_ scheme: String) -> Int? {
        defaultPorts[scheme]
    }

    private static let defaultPorts = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Decodes escapes of unreserved characters and upper-cases the hex digits of the rest.
    static func normalisePercentEncoding(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let value = high << 4 | low
                if unreserved.contains(value) {
                    out.append(value)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(hexDigit(high))
                    out.append(hexDigit(low))
                }
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 section 5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") { input = input.dropFirst(3) }
            else if input.hasPrefix("./") { input = input.dropFirst(2) }
            else if input.hasPrefix("/./") { input = input.dropFirst(2) }
            else if input == "/." { input = "/" }
            else if input.hasPrefix("/../") { input = input.dropFirst(3); _ = output.popLast() }
            else if input == "/.." { input = "/"; _ = output.popLast() }
            else if input == "." || input == ".." { input = "" }
            else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
