import Foundation
@testable import NavWatchCrawler
import NavWatchHTTP
import Testing

/// robots.txt, read as the crawler reads it (bytes decoded as UTF-8): the
/// rules it keeps decide `allows` as Google's matching does (checked against
/// a plain matcher written here), a file without groups allows everything,
/// well-formed files keep the group for the agent, and the `Sitemap:` lines
/// give absolute URLs once each.
@Suite struct RobotsTxtFuzzTests {
    @Test("robots.txt (and its Sitemap lines) under generated input")
    func robotsTxt() {
        FuzzTarget(name: "robots-txt", dictionary: Self.dictionary, generators: [{ $0.oneIn(4) ? Self.nearMisses(&$0) : Self.wellFormed(&$0).bytes }],
                   oracles: [Self.wellFormed], maximumSize: 8 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "User-agent:", "user-agent: *", "User-agent: navwatch", "Allow:", "Disallow:", "Disallow: /", "Allow: /$",
        "Sitemap:", "sitemap: /s.xml", "Crawl-delay: 5", "*", "$", "/*", "*$", "/$", "#", "\n", "\r\n", "\r", ":", " ",
        "\u{FEFF}", "%2F", "%", "?", "/caf\u{E9}", "e\u{301}", "\u{1F600}",
    ]

    /// Paths `allows` is asked about, six for each file, besides paths made from its rules.
    static let paths = ["/", "/a", "/a/", "/a/b", "/private/x", "/index.html", "/a?b=c", "/x.php", "/x.php?y=1", "/x.php.php",
                        "/%7Euser", "/caf%C3%A9", "/e%CC%81", "/%F0%9F%98%80", "/$", "/*", "/a%2Fb", "/%FF"]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        let robots = RobotsTxt(text)
        if !text.lowercased().contains("user-agent") {
            try require(robots.rules.isEmpty, "a file without a User-agent line has rules")
        }
        var random = FuzzRandom(seed: FuzzRandom.hash(bytes))
        var urls = (0..<6).map { _ in URL(string: "http://example.com" + random.pick(paths))! }
        for rule in robots.rules.prefix(6) {
            var components = URLComponents()
            components.scheme = "http"
            components.host = "example.com"
            var path = rule.pattern.hasSuffix("$") ? String(rule.pattern.dropLast()) : rule.pattern
            path = path.split(separator: "*", omittingEmptySubsequences: false)
                .joined(separator: random.pick(["", "x", "/a/", "*", "$", rule.pattern]))
            path += random.pick(["", "", "/", "x", "$", "?q=1", rule.pattern])
            // Near misses of the longest piece, which make a naive search slow.
            if let piece = rule.pattern.split(separator: "*").max(by: { $0.count < $1.count }), random.oneIn(4) {
                path = String(repeating: String(piece.dropLast()), count: 3)
            }
            path = String(path.prefix(1 << 16))   // many `*` replaced by the pattern: its square
            components.path = path.hasPrefix("/") ? path : "/" + path
            if let url = components.url { urls.append(url) }
        }
        let clock = ContinuousClock()
        for url in urls {
            var path = url.path.isEmpty ? "/" : url.path
            if let query = url.query { path += "?" + query }
            let started = clock.now
            let allowed = robots.allows(url)
            let took = clock.now - started
            try require(took < .seconds(1), "allows(\(url.absoluteString.prefix(100))…) took \(took) (\(url.absoluteString.count) characters)")
            guard let expected = Self.decision(robots.rules, path) else { continue }
            try require(allowed == expected,
                        "allows(\(url.absoluteString)) is \(!expected), matching \(Escaped(Array(path.utf8))) against \(robots.rules)")
            if robots.rules.isEmpty { try require(expected, "no rules, yet \(url) is disallowed") }
        }
        let base = URL(string: "https://example.com/robots.txt")!
        let sitemaps = Sitemap.sitemapURLs(inRobotsTxt: text, base: base)
        try require(sitemaps.allSatisfy { $0.scheme != nil && URL(string: $0.absoluteString)?.scheme != nil },
                    "a Sitemap URL without a scheme: \(sitemaps)")
        try require(Set(sitemaps.map(\.absoluteString)).count == sitemaps.count, "a Sitemap URL twice: \(sitemaps)")
        let sitemapLines = text.trimmingPrefix("\u{FEFF}").split(whereSeparator: \.isNewline).filter {
            $0.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces).lowercased() == "sitemap"
        }
        try require(sitemaps.count <= sitemapLines.count, "\(sitemaps.count) Sitemap URLs from \(sitemapLines.count) lines")
        return !robots.rules.isEmpty
    }

    /// Google's decision: the longest matching pattern wins, `Allow` on a tie;
    /// nil when the patterns and the path are too long to match here quickly.
    static func decision(_ rules: [RobotsTxt.Rule], _ path: String) -> Bool? {
        guard rules.reduce(0, { $0 + $1.pattern.count }) * path.count <= 100_000 else { return nil }
        var numbers: [Character: Int] = ["*": -1]
        func numbered(_ text: some StringProtocol) -> [Int] {
            text.map { character in
                if let number = numbers[character] { return number }
                numbers[character] = numbers.count
                return numbers.count - 1
            }
        }
        let path = numbered(path)
        var best: RobotsTxt.Rule?
        for rule in rules {
            let anchored = rule.pattern.hasSuffix("$")
            guard matches(numbered(anchored ? rule.pattern.dropLast() : Substring(rule.pattern)), anchored: anchored, path) else {
                continue
            }
            if let chosen = best, chosen.pattern.count > rule.pattern.count
                || (chosen.pattern.count == rule.pattern.count && (chosen.allow || !rule.allow)) { continue }
            best = rule
        }
        return best?.allow ?? true
    }

    /// Whether `pattern` matches `path` from its start (to its end when
    /// `anchored`), characters numbered, -1 for `*`, which stands for any
    /// characters. By dynamic programming, with no cleverness to get wrong.
    static func matches(_ pattern: [Int], anchored: Bool, _ path: [Int]) -> Bool {
        var reached = [true] + Array(repeating: false, count: path.count)   // reached[j]: the pattern so far matches path[..<j]
        for character in pattern {
            var j = 1
            if character == -1 {
                while j <= path.count { reached[j] = reached[j] || reached[j - 1]; j += 1 }
            } else {
                j = path.count
                while j > 0 { reached[j] = reached[j - 1] && path[j - 1] == character; j -= 1 }
                reached[0] = false
            }
        }
        return anchored ? reached[path.count] : reached.contains(true)
    }

    /// A file whose rule makes a naive substring search slow: many near
    /// misses of a long piece (the check asks about paths made of them).
    @Sendable static func nearMisses(_ random: inout FuzzRandom) -> [UInt8] {
        let piece = String(repeating: random.pick(["a", "ab", "x/"]), count: 500 + random.below(2_500)) + "$"
        return Array("User-agent: *\nDisallow: /*\(piece)\nAllow: /\(piece)\n".utf8)
    }

    /// A well-formed file from groups with distinct agents, written with the
    /// freedoms the format allows (case, spacing, comments, blank lines, line
    /// ends, a byte order mark), and the rules it must keep for `navwatch`:
    /// the first group naming a prefix of `navwatch`, else the first `*` group.
    @Sendable static func wellFormed(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        var agents = ["navwatch", "NavWatch", "nav", "*", "googlebot", "other-bot", "navwatcher"]
        var groups: [(agents: [String], rules: [RobotsTxt.Rule])] = []
        for _ in 0..<random.below(4) {
            guard !agents.isEmpty else { break }
            var names: [String] = []
            for _ in 0...random.below(2) where !agents.isEmpty { names.append(agents.remove(at: random.below(agents.count))) }
            let rules = (0..<random.below(5)).map { _ in
                RobotsTxt.Rule(allow: random.oneIn(3), pattern: random.pick(["/", "/private", "/*.pdf$", "/a/*/b", "/$", "*", "/x?", "/caf\u{E9}"]))
            }
            groups.append((names, rules))
        }
        let newline = random.pick(["\n", "\r\n", "\r"])
        func field(_ name: String) -> String {
            random.pick([name, name.lowercased(), name.uppercased()]) + random.pick([":", ": ", " : ", ":\t"])
        }
        var lines = random.pick([[], ["Sitemap: https://example.com/sitemap.xml"],
                                 ["# robots.txt for example.com", "Sitemap: https://example.com/sitemap.xml"]])
        let sitemaps = lines.isEmpty ? [] : [URL(string: "https://example.com/sitemap.xml")!]
        // User-agent lines with no other line after them before the next
        // User-agent line (blank lines and comments do not count) join the
        // next group, as in RFC 9309.
        var merged: [(agents: [String], rules: [RobotsTxt.Rule])] = [], waiting: [String] = []
        for group in groups {
            if random.oneIn(2) { lines.append(random.pick(["", "# next group"])) }
            lines += group.agents.map { field("User-agent") + $0 + random.pick(["", " ", " # agent"]) }
            var ended = !group.rules.isEmpty
            if random.oneIn(4) { lines.append(field("Crawl-delay") + "1"); ended = true }
            lines += group.rules.map { field($0.allow ? "Allow" : "Disallow") + $0.pattern + random.pick(["", " ", "\t# why"]) }
            if random.oneIn(3) { lines.append(field("Disallow")); ended = true }
            waiting += group.agents
            if ended { merged.append((waiting, group.rules)); waiting = [] }
        }
        if !waiting.isEmpty { merged.append((waiting, [])) }
        let text = (random.oneIn(4) ? "\u{FEFF}" : "") + lines.joined(separator: newline) + (random.oneIn(2) ? newline : "")
        let chosen = merged.first { $0.agents.contains { $0 != "*" && "navwatch".hasPrefix($0.lowercased()) } }
            ?? merged.first { $0.agents.contains("*") }
        let expected = chosen?.rules ?? []
        return (Array(text.utf8), { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let rules = RobotsTxt(text).rules
            try require(rules == expected, "kept \(rules), not \(expected)")
            let found = Sitemap.sitemapURLs(inRobotsTxt: text, base: URL(string: "https://example.com/robots.txt")!)
            try require(found == sitemaps, "the Sitemap lines give \(found), not \(sitemaps)")
        })
    }
}
