import NIOCore

/// Why an IP address is not on the package internet. The raw values appear in
/// reports and in the proxy's 403 answers.
///
/// `of(_:)` returns nil for a package address. The rules, IPv4:
///
/// | Range                                   | Kind                |
/// |-----------------------------------------|---------------------|
/// | 0.0.0.0/8                               | `unspecified`       |
/// | 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 | `private`         |
/// | 100.64.0.0/10                           | `carrier-grade-nat` |
/// | 127.0.0.0/8                             | `loopback`          |
/// | 169.254.0.0/16 (cloud metadata 169.254.169.254) | `link-local` |
/// | 224.0.0.0/4                             | `multicast`         |
/// | 255.255.255.255                         | `broadcast`         |
/// | 240.0.0.0/4 (but the broadcast address) | `reserved`          |
///
/// IPv6:
///
/// | Range                                   | Kind                |
/// |-----------------------------------------|---------------------|
/// | ::                                      | `unspecified`       |
/// | ::1                                     | `loopback`          |
/// | fe80::/10                               | `link-local`        |
/// | fec0::/10 (deprecated site-local)       | `site-local`        |
/// | fc00::/7                                | `unique-local`      |
/// | ff00::/8                                | `multicast`         |
/// | ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible), ::ffff:0:a.b.c.d (SIIT), 64:ff9b::a.b.c.d (NAT64) | as a.b.c.d |
/// | 64:ff9b:1::/48 (local-use NAT64) | as the address embedded for a /48, /56, /64 or /96 prefix: the first non-package one |
/// | 2002:a.b.c.d::/48 (6to4)                | as a.b.c.d          |
///
/// Everything else is public, including documentation and benchmarking
/// ranges (192.0.2.0/24, 198.18.0.0/15, 2001:db8::/32).
package enum PrivateAddressKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case loopback
    case `private`
    case linkLocal = "link-local"
    case carrierGradeNAT = "carrier-grade-nat"
    case uniqueLocal = "unique-local"
    case siteLocal = "site-local"
    case unspecified
    case multicast
    case broadcast
    case reserved

    package var description: String { rawValue }

    /// The kind with its indefinite article, for sentences: "a loopback",
    /// "an unspecified".
    package var withArticle: String { self == .unspecified ? "an \(rawValue)" : "a \(rawValue)" }

    /// The kind of `address`, or nil when it is public. A Unix domain socket
    /// address counts as `loopback`: it never leaves the machine.
    package static func of(_ address: SocketAddress) -> PrivateAddressKind? {
        switch address {
        case .v4(let v4):
            return of(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            var bytes = v6.address.sin6_addr
            return withUnsafeBytes(of: &bytes) { of(ipv6: Array($0)) }
        case .unixDomainSocket:
            return .loopback
        }
    }

    /// The kind of the textual IPv4 or IPv6 address `text` (no brackets, no
    /// zone), or nil when it is public. Returns nil too when `text` is not an
    /// IP address: ask `isIPAddress` first where that matters.
    package static func of(ipAddress text: String) -> PrivateAddressKind? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return of(address)
    }

    /// The kind of the IPv4 address `address` (host byte order, so that
    /// 10.0.0.1 is `0x0A00_0001`).
    package static func of(ipv4 address: UInt32) -> PrivateAddressKind? {
        func within(_ network: UInt32, _ prefixLength: UInt32) -> Bool {
            let mask: UInt32 = prefixLength == 0 ? 0 : ~0 << (32 - prefixLength)
            return address & mask == network
        }
        if within(0x0000_0000, 8) { return .unspecified }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { return .private }
        if within(0x6440_0000, 10) { return .carrierGradeNAT }
        if within(0x7F00_0000, 8) { return .loopback }
        if within(0xA9FE_0000, 16) { return .linkLocal }
        if within(0xE000_0000, 4) { return .multicast }
        if address == 0xFFFF_FFFF { return .broadcast }
        if within(0xF000_0000, 4) { return .reserved }
        return nil
    }

    /// The kind of the IPv6 address whose 16 bytes (network order) are `bytes`.
    package static func of(ipv6 bytes: [UInt8]) -> PrivateAddressKind? {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes, not \(bytes.count)")
        let embeddedIPv4 = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        let firstTen = bytes[0..<10].allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d, IPv4-mapped.
        if firstTen && bytes[10] == 0xFF && bytes[11] == 0xFF { return of(ipv4: embeddedIPv4) }
        if firstTen && bytes[10] == 0 && bytes[11] == 0 {
            switch embeddedIPv4 {
            case 0: return .unspecified  // ::
            case 1: return .loopback     // ::1
            default: return of(ipv4: embeddedIPv4)  // ::a.b.c.d, IPv4-compatible (deprecated)
            }
        }
        // ::ffff:0:a.b.c.d, IPv4-translated (SIIT, RFC 7915).
        if bytes[0..<8].allSatisfy({ $0 == 0 }) && bytes[8] == 0xFF && bytes[9] == 0xFF && bytes[10] == 0 && bytes[11] == 0 {
            return of(ipv4: embeddedIPv4)
        }
        // 64:ff9b::a.b.c.d, the NAT64 well-known prefix: a NAT64 gateway
        // connects to a.b.c.d on its own side.
        if bytes[0..<12].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return of(ipv4: embeddedIPv4) }
        // 64:ff9b:1::/48, the local-use NAT64 prefix (RFC 8215), which a
        // network may use at any prefix length from /48 to /96: the IPv4
        // address sits where RFC 6052 puts it for a /48, /56, /64 or /96
        // prefix, and the first of those places that holds a non-public
        // address decides. A place in 0.0.0.0/8 is mostly the zero padding
        // around another place, so it decides only when every place is.
        if bytes[0..<6].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01]) {
            func ipv4(_ indices: [Int]) -> UInt32 { indices.reduce(0) { $0 << 8 | UInt32(bytes[$1]) } }
            let kinds = [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], [12, 13, 14, 15]].map { of(ipv4: ipv4($0)) }
            if let kind = kinds.first(where: { $0 != nil && $0 != .unspecified }) { return kind }
            return kinds.allSatisfy { $0 == .unspecified } ? .unspecified : nil
        }
        // 2002:a.b.c.d::/48, 6to4 (RFC 3056): a relay forwards to a.b.c.d.
        if bytes[0] == 0x20 && bytes[1] == 0x02 {
            return of(ipv4: UInt32(bytes[2]) << 24 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 8 | UInt32(bytes[5]))
        }
        if bytes[0] == 0xFF { return .multicast }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return .siteLocal }
        if bytes[0] & 0xFE == 0xFC { return .uniqueLocal }
        return nil
    }
}
