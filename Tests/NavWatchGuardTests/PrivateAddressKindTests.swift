import NIOCore
import NavWatchGuard
import NavWatchTestSupport
import Testing

@Suite struct PrivateAddressKindTests {
    static let ipv4: [(String, PrivateAddressKind?)] = [
        ("0.0.0.0", .unspecified), ("0.255.255.255", .unspecified), ("1.0.0.0", nil),
        ("9.255.255.255", nil), ("10.0.0.0", .private), ("10.0.0.1", .private), ("10.255.255.255", .private), ("11.0.0.0", nil),
        ("100.63.255.255", nil), ("100.64.0.0", .carrierGradeNAT), ("100.127.255.255", .carrierGradeNAT), ("100.128.0.0", nil),
        ("126.255.255.255", nil), ("127.0.0.0", .loopback), ("127.0.0.1", .loopback), ("127.0.0.2", .loopback),
        ("127.255.255.255", .loopback), ("128.0.0.0", nil),
        ("169.253.255.255", nil), ("169.254.0.0", .linkLocal), ("169.254.169.254", .linkLocal),
        ("169.254.255.255", .linkLocal), ("169.255.0.0", nil),
        ("172.15.255.255", nil), ("172.16.0.0", .private), ("172.31.255.255", .private), ("172.32.0.0", nil),
        ("192.167.255.255", nil), ("192.168.0.0", .private), ("192.168.255.255", .private), ("192.169.0.0", nil),
        ("8.8.8.8", nil), ("1.1.1.1", nil), ("192.0.2.1", nil), ("198.18.0.1", nil),
        ("223.255.255.255", nil), ("224.0.0.0", .multicast), ("239.255.255.255", .multicast),
        ("240.0.0.0", .reserved), ("255.255.255.254", .reserved), ("255.255.255.255", .broadcast),
    ]

    static let ipv6: [(String, PrivateAddressKind?)] = [
        ("::", .unspecified), ("::1", .loopback), ("::2", .unspecified),
        ("fe80::", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fec0::1", .siteLocal), ("feff::1", .siteLocal), ("fe7f::1", nil),
        ("fbff::1", nil), ("fc00::", .uniqueLocal), ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .uniqueLocal), ("fdff::1", .uniqueLocal), ("fe00::1", nil),
        ("ff00::", .multicast), ("ff02::1", .multicast), ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .multicast),
        ("2001:4860:4860::8888", nil), ("2606:4700::1111", nil), ("2001:db8::1", nil),
        ("::ffff:10.0.0.1", .private), ("::ffff:8.8.8.8", nil), ("::ffff:127.0.0.1", .loopback),
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:0.0.0.0", .unspecified), ("::ffff:100.64.0.1", .carrierGradeNAT),
        ("::10.0.0.1", .private), ("::8.8.8.8", nil), ("::127.0.0.1", .loopback),
        ("64:ff9b::10.0.0.1", .private), ("64:ff9b::8.8.8.8", nil), ("64:ff9b::169.254.169.254", .linkLocal),
        ("::fffe:10.0.0.1", nil),
        // SIIT (::ffff:0:0/96), local-use NAT64 (64:ff9b:1::/48, IPv4 at the /96 or the /48 place) and 6to4 (2002::/16).
        ("::ffff:0:10.0.0.1", .private), ("::ffff:0:127.0.0.1", .loopback), ("::ffff:0:8.8.8.8", nil),
        ("64:ff9b:1::10.0.0.1", .private), ("64:ff9b:1::169.254.169.254", .linkLocal), ("64:ff9b:1::8.8.8.8", nil),
        ("64:ff9b:1:7f00:0:100::", .loopback), ("64:ff9b:1:a00:1::", .private), ("64:ff9b:1:808:8:800::", nil),
        ("2002:7f00:1::", .loopback), ("2002:a00:1::1", .private), ("2002:a9fe:a9fe::", .linkLocal),
        ("2002:808:808::1", nil), ("2003:7f00:1::", nil),
    ]

    @Test("IPv4 addresses classify by range, boundaries included", arguments: ipv4)
    func ipv4Address(text: String, expected: PrivateAddressKind?) throws {
        #expect(PrivateAddressKind.of(try SocketAddress(ipAddress: text, port: 80)) == expected)
        #expect(PrivateAddressKind.of(ipAddress: text) == expected)
    }

    @Test("IPv6 addresses classify by range; mapped, compatible, SIIT, NAT64 and 6to4 forms as their IPv4 address", arguments: ipv6)
    func ipv6Address(text: String, expected: PrivateAddressKind?) throws {
        #expect(PrivateAddressKind.of(try SocketAddress(ipAddress: text, port: 443)) == expected)
        #expect(PrivateAddressKind.of(ipAddress: text) == expected)
    }

    @Test func rawValuesAreTheReportNames() {
        #expect(PrivateAddressKind.allCases.map(\.rawValue) == [
            "loopback", "private", "link-local", "carrier-grade-nat", "unique-local", "site-local", "unspecified",
            "multicast", "broadcast", "reserved",
        ])
    }

    @Test func aUnixDomainSocketCountsAsLoopback() throws {
        #expect(PrivateAddressKind.of(try SocketAddress(unixDomainSocketPath: "/tmp/x.sock")) == .loopback)
    }

    @Test func textThatIsNoAddressHasNoKind() {
        #expect(PrivateAddressKind.of(ipAddress: "localhost") == nil)
        #expect(PrivateAddressKind.of(ipAddress: "127.1") == nil)
    }
}
