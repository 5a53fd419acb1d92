import Foundation
@testable import NavWatchCrawler
import NavWatchGuard
import PropertyBased
import Testing

/// URLs built from parts, and ways of writing the same URL differently.
private let schemes = Gen.element(of: ["http", "https"])
private let hosts = Gen.element(of: ["example.org", "a.example.org", "127.0.0.1", "xn--bcher-kva.example"])
private let segments = Gen.element(of: ["a", "b", "docs", "x-y", "~me", "caf%C3%A9", "%7Euser", "a.b", "under_score", "sp%20ace"])
    .array(of: 0...4)
private let queries = Gen.element(of: [nil, "q=1", "a=b&c=d", "x=%2F", "s=%7e"])
private let fragments = Gen.element(of: [nil, "top", "a/b", ""])

private struct Parts: Sendable, CustomStringConvertible {
    var scheme: String, host: String, path: [String], query: String?, fragment: String?

    func render(upperScheme: Bool = false, upperHost: Bool = false, explicitPort: Bool = false,
                encodeUnreserved: Bool = false, lowerHex: Bool = false, withFragment: String? = nil,
                dotSegments: Bool = false) -> String {
        var text = (upperScheme ? scheme.uppercased() : scheme) + "://" + (upperHost ? host.uppercased() : host)
        if explicitPort { text += scheme == "http" ? ":80" : ":443" }
        var pathSegments = path
        if encodeUnreserved { pathSegments = pathSegments.map { $0.replacingOccurrences(of: "a", with: "%61") } }
        if lowerHex { pathSegments = pathSegments.map { $0.replacingOccurrences(of: "%C3%A9", with: "%c3%a9") } }
        if dotSegments { pathSegments = ["zz", "..", "."] + pathSegments }
        text += "/" + pathSegments.joined(separator: "/")
        if let query { text += "?" + query }
        if let fragment = withFragment ?? fragment { text += "#" + fragment }
        return text
    }

    var description: String { render() }
}

private let parts = zip(schemes, hosts, segments, queries, fragments).map {
    // `element(of:)` yields nil only for an empty collection; none is empty here.
    Parts(scheme: $0!, host: $1!, path: $2.map { $0! }, query: $3 ?? nil, fragment: $4 ?? nil)
}

@Suite("URLCanonicalizer")
struct URLCanonicalizerTests {
    @Test("canonicalising is idempotent")
    func idempotent() async {
        await propertyCheck(count: 300, input: parts) { parts in
            let once = URLCanonicalizer.key(parts.render())
            #expect(once != nil)
            #expect(once.flatMap(URLCanonicalizer.key) == once)
        }
    }

    @Test("equal URLs written differently map to the same key")
    func equalURLsShareAKey() async {
        await propertyCheck(count: 300, input: parts) { parts in
            let key = URLCanonicalizer.key(parts.render())
            #expect(URLCanonicalizer.key(parts.render(upperScheme: true, upperHost: true)) == key)
            #expect(URLCanonicalizer.key(parts.render(explicitPort: true)) == key)
            #expect(URLCanonicalizer.key(parts.render(encodeUnreserved: true)) == key)
            #expect(URLCanonicalizer.key(parts.render(lowerHex: true)) == key)
            #expect(URLCanonicalizer.key(parts.render(withFragment: "elsewhere")) == key)
            #expect(URLCanonicalizer.key(parts.render(dotSegments: true)) == key)
        }
    }

    @Test("a key has no fragment, a lower-case scheme and host, and no default port")
    func keyShape() async {
        await propertyCheck(count: 300, input: parts) { parts in
            let key = URLCanonicalizer.key(parts.render(upperScheme: true, upperHost: true, explicitPort: true)) ?? ""
            #expect(!key.contains("#"))
            #expect(key.hasPrefix(parts.scheme + "://" + parts.host.lowercased() + "/"))
        }
    }

    @Test("examples", arguments: [
        ("HTTP://Example.ORG:80/a/./b/../c?x=%7e#frag", "http://example.org/a/c?x=~"),
        ("https://example.org", "https://example.org/"),
        ("https://example.org:8443/%7Euser/%c3%a9", "https://example.org:8443/~user/%C3%A9"),
        ("http://127.0.0.1:1/x#", "http://127.0.0.1:1/x"),
        // Hosts as WebKit writes them: IPv4 in any form, IPv6 shortest.
        ("http://2130706433:8080/x", "http://127.0.0.1:8080/x"),
        ("http://0x7F.1/", "http://127.0.0.1/"),
        ("http://0177.0.0.1./", "http://127.0.0.1/"),
        ("http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]/"),
        ("http://[::FFFF:127.0.0.1]/", "http://[::ffff:7f00:1]/"),
    ])
    func examples(input: String, expected: String) {
        #expect(URLCanonicalizer.key(input) == expected)
    }

    @Test("a host WebKit refuses has no key: it ends in a number but is no IPv4 address, or is a bad IPv6 literal",
          arguments: ["http://1.2.3.999/", "http://1.2.3.4.5/", "http://0x100000000/", "http://example.0x/", "http://[::g]/"])
    func refusedHosts(input: String) {
        #expect(URLCanonicalizer.key(input) == nil)
    }

    @Test("one site rule for --scope same-domain and third-party hosts: the last two labels, an IP address alone")
    func sites() throws {
        #expect(HostName.site("a.docs.example.org") == "example.org")
        #expect(HostName.site("B.Example.ORG.") == "example.org")
        #expect(HostName.site("10.0.0.1") == "10.0.0.1" && HostName.site("0x7f.1") == "127.0.0.1")
        #expect(HostName.site("[fe80::a]") == "fe80::a" && HostName.site("fe80::A") == "fe80::a")
        #expect(HostName.site("1.2.3.999") == "1.2.3.999")
        // The scope and a report's third-party hosts read hosts the same way: an IPv6 host with letters
        // is its own site, and a host written in capitals is its lower-case self.
        let seeds = [URL(string: "http://[fe80::a]:8080/")!, URL(string: "http://Docs.Example.org/")!]
        #expect(CrawlScope.sameDomain.contains(URL(string: "http://[fe80::a]/other")!, seeds: seeds))
        #expect(!CrawlScope.sameDomain.contains(URL(string: "http://[fe80::b]/")!, seeds: seeds))
        #expect(CrawlScope.sameDomain.contains(URL(string: "https://www.example.org/")!, seeds: seeds))
        #expect(CrawlScope.sameOrigin.contains(URL(string: "http://Docs.Example.org:80/a")!, seeds: seeds))
        #expect(!CrawlScope.sameOrigin.contains(URL(string: "https://Docs.Example.org/a")!, seeds: seeds))
        #expect(URLCanonicalizer.defaultPort("https") == 443 && URLCanonicalizer.defaultPort("about") == nil)
    }

    @Test("an origin keeps IPv6 brackets and the port as written")
    func origins() throws {
        func origin(_ text: String) throws -> String? { URLCanonicalizer.origin(of: try #require(URL(string: text))) }
        #expect(try origin("http://[::1]:8080/robots.txt") == "http://[::1]:8080")
        #expect(try origin("HTTPS://Example.ORG/a") == "https://example.org")
        #expect(try origin("http://2130706433:81/") == "http://127.0.0.1:81")
        #expect(try origin("mailto:someone@example.org") == nil)
    }
}

extension URLCanonicalizerTests {
    // Found by NavWatchFuzzTests: the first gave the key `http:/a`, the
    // second lost a `25` at each pass, so neither key was its own key.
    @Test("a host Foundation drops or changes gives no key")
    func hostsFoundationDoesNotReadBack() {
        #expect(URLCanonicalizer.key("http://xn--a.example/a") == nil)
        #expect(URLCanonicalizer.key("http://[fe80::1%252525eth0]/x") == nil)
        // WebKit refuses IPv6 zones (WHATWG hosts have none): no key either.
        #expect(URLCanonicalizer.key("http://[fe80::1%25eth0]/x") == nil)
        #expect(URLCanonicalizer.key("https://XN--bcher-kva.example/") == "https://xn--bcher-kva.example/")
        #expect(URLCanonicalizer.key("mailto:a@example.org") == "mailto:a@example.org")
    }
}

@Suite("RobotsTxt")
struct RobotsTxtTests {
    @Test("the longest matching rule wins; Allow wins a tie; * and $ match")
    func rules() {
        let robots = RobotsTxt("""
            User-agent: other
            Disallow: /

            User-agent: *
            Disallow: /private
            Allow: /private/open
            Disallow: /*.pdf$
            Disallow: /tmp/*/cache
            """)
        #expect(robots.allows(URL(string: "http://h/")!))
        #expect(!robots.allows(URL(string: "http://h/private/x")!))
        #expect(robots.allows(URL(string: "http://h/private/open/page")!))
        #expect(!robots.allows(URL(string: "http://h/docs/a.pdf")!))
        #expect(robots.allows(URL(string: "http://h/docs/a.pdf?x=1")!))
        #expect(!robots.allows(URL(string: "http://h/tmp/a/cache/1")!))
        #expect(RobotsTxt("User-agent: navwatch\nDisallow: /\n").allows(URL(string: "http://h/a")!) == false)
        #expect(RobotsTxt("User-agent: navwatch\nDisallow:\n").allows(URL(string: "http://h/a")!))
    }

    // Found by NavWatchFuzzTests.
    @Test("$ anchors a pattern without * too; an empty Disallow ends a group's agents; a byte order mark is ignored")
    func fuzzFindings() {
        let anchored = RobotsTxt("User-agent: *\nDisallow: /$\nDisallow: /search\nAllow: /search/about$\n")
        #expect(!anchored.allows(URL(string: "http://h/")!))
        #expect(anchored.allows(URL(string: "http://h/docs/")!))
        #expect(anchored.allows(URL(string: "http://h/search/about")!))
        #expect(!anchored.allows(URL(string: "http://h/search/about/search/about")!))
        let onlyUs = RobotsTxt("User-agent: navwatch\nDisallow:\n\nUser-agent: *\nDisallow: /\n")
        #expect(onlyUs.allows(URL(string: "http://h/a")!))
        #expect(!RobotsTxt("User-agent: other\nDisallow:\n\nUser-agent: *\nDisallow: /\n").allows(URL(string: "http://h/a")!))
        #expect(!RobotsTxt("\u{FEFF}User-agent: *\nDisallow: /private\n").allows(URL(string: "http://h/private")!))
    }

    @Test("a long pattern and a path of near misses match in linear time")
    func nearMisses() {
        let piece = String(repeating: "ab", count: 8_000)
        let robots = RobotsTxt("User-agent: *\nDisallow: /*\(piece)x\n")
        let clock = ContinuousClock(), started = clock.now
        #expect(robots.allows(URL(string: "http://h/" + String(repeating: piece, count: 3))!))
        #expect(clock.now - started < .seconds(1))   // seconds with a naive search: range(of:), firstRange(of:)
    }
}
