import ArgumentParser
import Foundation
@testable import NavWatchCLI
@testable import NavWatchCrawler
import NavWatchSupport
import Testing

/// The numbers navwatch reads from its command line and its policy file:
/// network profiles (`--network`, `[network] profile`), the policy file
/// (its politeness, budgets and network), and the numeric options of
/// `navwatch URL`, `crawl` and `diff`. Each input is given to every one of
/// them; the property: nothing traps, and each either gives a value in its
/// documented range (which then prints and converts as navwatch does) or an
/// error navwatch writes as one line.
@Suite struct ArgumentFuzzTests {
    @Test("network profiles, policy files and numeric options under generated input")
    func arguments() {
        // An input takes some 26 ms here (argument-parser's parse of a whole
        // command, in a debug build): half the bounded pass of the other
        // parsers keeps this one from being the last fuzz test by 50 s.
        FuzzTarget(name: "arguments", dictionary: Self.dictionary, generators: [Self.number, Self.profile, Self.policy],
                   maximumSize: 2 << 10, boundedIterations: 2_000, check: Self.check).run()
    }

    static let dictionary = [
        "latency=", "rtt=", "down=", "up=", ",", "=", "ms", "s", "kbps", "Mbps", "Gbps", "bit/s", "Gbit/s", "e", "e308", "e19",
        "1e16", "2e13", "-", "+", ".", "0x1p1023", "inf", "nan", "9223372036854775807", "[network]", "profile = ", "\"",
        "[politeness]", "delay_ms = ", "host_concurrency = ", "[[budget]]", "load_ms = ", "bytes = ", "\n", " ", "\u{0}", "\u{202E}",
    ]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        var accepted = false
        if let profile = try profile(text) { accepted = true; try requireInRange(profile, text) }
        do {
            let policy = try PolicyFile(text, name: "p.toml")
            accepted = true
            if let network = policy.network { try requireInRange(network, text) }
            for value in [policy.delayMs, policy.externalDelayMs] { try require((value ?? 0) >= 0, "a delay of \(value!) ms from \(text)") }
            try require((policy.hostConcurrency ?? 1) >= 1, "host_concurrency \(policy.hostConcurrency!) from \(text)")
            for budget in policy.budgets?.budgets ?? [] {
                for (metric, limit) in budget.limits {
                    try require(limit >= 0 && limit.isFinite, "a limit of \(limit) from \(text)")
                    _ = metric.shown(limit)
                }
            }
        } catch {
            try requireOneLine(error, text)
        }
        // One command and option an input, chosen by the input: every one over a
        // pass (parsing a command line and writing its error is the slow part).
        var random = FuzzRandom(seed: FuzzRandom.hash(bytes))
        let command = random.below(3)
        let diffOption = random.pick(["--slower-by", "--slower-by-ms", "--level", "--visual-tolerance"])
        if command == 0, let diff = try Self.command(DiffCommand.self, ["old.db", "new.db", diffOption, text]) {
            accepted = true
            try require((0...DiffCommand.slowerByLimit).contains(diff.slowerBy ?? 0), "--slower-by \(text)")
            try require((0...DiffCommand.slowerByMsLimit).contains(diff.slowerByMs ?? 0), "--slower-by-ms \(text)")
            try require(diff.level > 0 && diff.level < 1, "--level \(text)")
            try require((0...100).contains(diff.visualTolerance), "--visual-tolerance \(text)")
            _ = [diff.slowerBy, diff.slowerByMs, diff.level].map { $0?.plainText }
        }
        let option = random.pick(["--timeout", "--lease", "--extract-timeout", "--network", "--recheck-after", "--concurrency", "--delay"])
        let extra = option == "--extract-timeout" ? ["--extract", "x.js"] : option == "--recheck-after" ? ["--check-external"] : []
        if command == 1, let crawl = try Self.command(CrawlCommand.self, ["https://a.test/", option, text] + extra) {
            accepted = true
            for seconds in [crawl.timeout, crawl.lease, crawl.extractTimeout ?? 1] {
                try require(seconds > 0 && seconds <= DurationArgument.longestWait, "\(option) \(text) gives \(seconds) s")
                _ = Int64(seconds * 1000)   // as `crawl` converts them
            }
            try require(crawl.recheckAfter.map { $0.seconds >= 0 && $0.seconds.isFinite } ?? true, "\(option) \(text)")
            if let network = crawl.network { try requireInRange(network.profile, text) }
        }
        let watchOption = random.pick(["--timeout", "--network", "--settle"])
        if command == 2, let watch = try Self.command(WatchCommand.self, ["https://a.test/", watchOption, text]) {
            accepted = true
            try require(watch.options.timeout > 0 && watch.options.timeout <= DurationArgument.longestWait, "navwatch URL: \(text)")
            _ = Int64(watch.options.timeout * 1000)
            if let network = watch.options.network { try requireInRange(network.profile, text) }
        }
        return accepted
    }

    @Test("a number as people write it, whole or not, huge or not a number, never traps")
    func plainText() {
        #expect([150, 1.6, 0.25, -0.0, 1e14, 1e15, 2e13 * 1e6, 1e19, 1e300, .infinity, .nan].map(\.plainText)
                == ["150", "1.6", "0.25", "0", "100000000000000", "1e+15", "2e+19", "1e+19", "1e+300", "inf", "nan"])
    }

    /// The profile `text` is; nil when it is none, after checking its error is one line.
    private static func profile(_ text: String) throws -> NetworkProfile? {
        do { return try NetworkProfile(parsing: text) } catch {
            try requireOneLine(error, text)
            return nil
        }
    }

    /// The command the arguments (after the command's name) make; nil when
    /// navwatch refuses them, after checking its line. Parsed by the command
    /// itself, not by navwatch's whole tree of commands: the same checks, faster.
    private static func command<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) throws -> Command? {
        do {
            return try Command.parse(arguments)
        } catch {
            try requireOneLine(error, arguments.joined(separator: " "))
            return nil
        }
    }

    /// A profile in the documented ranges (a round trip of 0 to 60 s, 1 kbit/s
    /// to 100 Gbit/s each way) that prints, shapes and reads back as itself.
    private static func requireInRange(_ profile: NetworkProfile, _ text: String) throws {
        try require((0...60_000).contains(profile.roundTripMs), "\(text): a round trip of \(profile.roundTripMs) ms")
        for rate in [profile.downKbps, profile.upKbps].compactMap({ $0 }) {
            try require((1...1e8).contains(rate), "\(text): a bandwidth of \(rate) kbit/s")
        }
        _ = profile.description
        _ = profile.linkShape
        if profile.name.contains("=") {
            let again = try? NetworkProfile(parsing: profile.name)
            try require(again?.description == profile.description,
                        "\(text) is \(profile), read back from \(profile.name) as \(String(describing: again))")
        }
    }

    /// The line navwatch writes for `error` is one line, and says something.
    private static func requireOneLine(_ error: any Error, _ input: String) throws {
        let line = NavwatchCommand.errorLine(for: error)
        try require(!line.contains("\n") && !line.contains("\r") && line.count > "navwatch: ".count,
                    "\(Escaped(Array(input.utf8))): the error is written as \(Escaped(Array(line.utf8)))")
    }

    // MARK: Generators

    /// Numbers as people and attackers write them: huge, tiny, negative, hexadecimal, not a number.
    @Sendable static func number(_ random: inout FuzzRandom) -> [UInt8] {
        Array(numberText(&random).utf8)
    }

    private static func numberText(_ random: inout FuzzRandom) -> String {
        let sign = random.pick(["", "", "-", "+"])
        let digits = random.pick(["0", "1", "5", "30", "86400", "86401", "100000", "9223372036854775807", "18446744073709551616",
                                  "0.5", ".5", "1.", "0x1p1023", "inf", "nan", "1e"])
        let exponent = random.oneIn(2) ? ""
            : "e" + random.pick(["", "-", "+"]) + random.pick(["1", "8", "13", "16", "19", "300", "308", "400"])
        return sign + digits + exponent
    }

    /// A custom profile with generated numbers and units.
    @Sendable static func profile(_ random: inout FuzzRandom) -> [UInt8] {
        var parts = ["latency=" + numberText(&random) + random.pick(["ms", "s", ""])]
        for key in ["down", "up"] where random.oneIn(2) {
            parts.append(key + "=" + numberText(&random) + random.pick(["bps", "kbps", "Mbps", "Gbps", "bit/s", "Gbit/s"]))
        }
        return Array(parts.shuffled(using: &random).joined(separator: ",").utf8)
    }

    /// A policy file with generated numbers in its network, politeness and budget tables.
    @Sendable static func policy(_ random: inout FuzzRandom) -> [UInt8] {
        var lines: [String] = []
        if random.oneIn(2) { lines += ["[network]", "profile = \"\(String(decoding: profile(&random), as: UTF8.self))\""] }
        if random.oneIn(2) {
            lines += ["[politeness]", random.pick(["delay_ms", "external_delay_ms", "host_concurrency"]) + " = " + numberText(&random)]
        }
        if random.oneIn(2) {
            lines += ["[[budget]]", random.pick(["load_ms", "bytes", "requests", "fcp_ms"]) + " = " + numberText(&random)]
        }
        return Array(lines.joined(separator: "\n").utf8)
    }
}
