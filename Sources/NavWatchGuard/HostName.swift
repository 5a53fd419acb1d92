#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Host names as a browser engine reads them, and as the guard compares them.
///
/// WebKit parses hosts by the WHATWG URL Standard: `2130706433`, `0x7f.1`
/// and `0177.0.0.1` all name 127.0.0.1, and `[0:0::1]` is `[::1]`. What a
/// user or a page writes is turned into that one form before it is allowed,
/// compared or stored, so that the form WebKit sends and the form the user
/// wrote are the same host.
package enum HostName {
    /// `host` as the WHATWG URL Standard serialises it (without IPv6
    /// brackets): an IPv4 address in any of its forms (decimal, octal, hex,
    /// fewer than four parts) as a dotted quad, an IPv6 address in its
    /// shortest lower-case form, a name lower-cased. Nil when `host` is
    /// empty or is no valid host: it ends in a number but is no IPv4
    /// address (`1.2.3.999`), or is an invalid IPv6 literal.
    ///
    /// Percent-encoding and internationalised names are left as they are.
    package static func canonical(_ host: String) -> String? {
        guard !host.isEmpty else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            return ipv6(String(host.dropFirst().dropLast()))
        }
        if host.contains(":") { return ipv6(host) }
        let name = host.lowercased()
        guard endsInANumber(name) else { return name }
        return ipv4(name).map(dottedQuad)
    }

    /// `host` as the guard compares it: `canonical`, without a trailing dot
    /// (`example.org.` and `example.org` are one host) or IPv6 brackets;
    /// just lower-cased when it is no valid host.
    package static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if let canonical = canonical(host) { return canonical }
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host
    }

    /// The site `host` belongs to, as navwatch approximates a registrable
    /// domain: the last two labels of its `normalized` form
    /// (`a.example.org` and `B.Example.org.` are both `example.org`); an IP
    /// address in any of its forms, or a name that ends in a number, is a
    /// site of its own. The one rule of `CrawlScope.sameDomain` and of a
    /// report's third-party hosts.
    package static func site(_ host: String) -> String {
        let host = normalized(host)
        if host.contains(":") || endsInANumber(host) { return host }
        return host.split(separator: ".").suffix(2).joined(separator: ".")
    }

    /// `host:port` for messages, with IPv6 addresses in brackets (`[::1]:8080`).
    package static func authority(_ host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `host` as a socket address when it is an IPv4 or IPv6 literal (dotted
    /// quad or RFC 4291 text, no brackets); nil for a name.
    static func ipAddress(_ host: String, port: Int = 0) -> SocketAddress? {
        try? SocketAddress(ipAddress: host, port: port)
    }

    // MARK: - IPv4 (WHATWG URL Standard, "IPv4 parser")

    /// Whether the WHATWG host parser treats `host` as an IPv4 address:
    /// its last dot-separated part (a final empty part ignored) is all
    /// digits, or parses as an IPv4 number (`0x1f`).
    static func endsInANumber(_ host: String) -> Bool {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" {
            guard parts.count > 1 else { return false }
            parts.removeLast()
        }
        guard let last = parts.last, !last.isEmpty else { return false }
        if last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        return ipv4Number(last) != nil
    }

    /// The address `host` names, as the WHATWG IPv4 parser reads it; nil on
    /// failure (more than four parts, a part that is no number, a part too large).
    static func ipv4(_ host: String) -> UInt32? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 255 }), last < UInt64(1) << (8 * UInt64(5 - parts.count)) else { return nil }
        var address = last
        for (index, number) in numbers.enumerated() { address += number << (8 * UInt64(3 - index)) }
        return UInt32(address)
    }

    /// One part of an IPv4 address: decimal, octal with a leading `0`, hex
    /// with `0x`; nil when it is empty, no number, or above 2^32.
    private static func ipv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count > 1, digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for character in digits {
            guard let digit = character.hexDigitValue, UInt64(digit) < radix else { return nil }
            value = value * radix + UInt64(digit)
            guard value <= UInt64(UInt32.max) + 1 else { return nil }  // too large for any part
        }
        return value
    }

    private static func dottedQuad(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

    // MARK: - IPv6

    /// `text` (no brackets) in the WHATWG serialisation: lower-case hex
    /// pieces without leading zeros, the first longest run of two or more
    /// zero pieces as `::`, no dotted IPv4 tail. Nil when it is no IPv6
    /// address (zone identifiers included).
    static func ipv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        let pieces = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        // The first longest run of zero pieces, if it is at least two long.
        var best: Range<Int>?
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8, pieces[end] == 0 { end += 1 }
            if end - index >= 2, end - index > (best?.count ?? 0) { best = index..<end }
            index = end
        }
        let hex = pieces.map { String($0, radix: 16) }
        guard let best else { return hex.joined(separator: ":") }
        return hex[..<best.lowerBound].joined(separator: ":") + "::" + hex[best.upperBound...].joined(separator: ":")
    }
}
