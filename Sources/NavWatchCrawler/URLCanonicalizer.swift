import Foundation

/// Turns a URL into the key the crawler deduplicates on, following RFC 3986
/// normalisation: the fragment is dropped, scheme and host are lower-cased,
/// the default port is dropped, an empty path becomes `/`, dot segments are
/// removed, percent-encoded unreserved characters are decoded and the other
/// escapes use upper-case hex. Equal URLs get equal keys; a key is its own key.
public enum URLCanonicalizer {
    /// The canonical form of `url`, or nil when it has no scheme, an empty
    /// host, or a host Foundation does not write or read back as it was, as
    /// happens with escapes of bytes RFC 3986 allows in no host (`%00`, `%22`)
    /// or that are not UTF-8, Unicode that IDNA refuses (`-%C3%A9.example`),
    /// `xn--` labels that are no punycode (`xn--a`), labels longer than 63
    /// characters, escapes in an IPv6 zone (`%2525`). A URL without a host
    /// (`mailto:a@example.org`) keeps its path.
    public static func canonical(_ url: URL) -> URL? {
        // Such a host is dropped (`http://xn--a.example/a` gave `http:/a`) or
        // comes back changed (`[fe80::1%252525eth0]` lost a `25` each time).
        guard let once = normalised(url), (once.host == nil) == (url.host == nil),
              normalised(once)?.absoluteString == once.absoluteString else { return nil }
        return once
    }

    private static func normalised(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased() else { return nil }
        components.scheme = scheme
        components.fragment = nil
        if let host = components.percentEncodedHost {
            guard !host.isEmpty else { return nil }
            components.percentEncodedHost = normalisePercentEncoding(host).lowercased()
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

    /// The canonical form of `text` as a string, or nil when it is not a URL.
    public static func key(_ text: String) -> String? {
        URL(string: text).flatMap(canonical)?.absoluteString
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
