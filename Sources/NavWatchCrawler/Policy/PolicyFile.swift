import Foundation
import TOMLKit

/// A crawl's policy, in TOML: `navwatch.toml` in the working directory, or
/// the file `--config` names.
///
///     ignore = ["^https://twitter\\.com/"]   # neither followed nor checked
///
///     [[accept]]                     # statuses that count as fine
///     pattern = "linkedin\\.com"     # optional: the URLs it applies to (the last match wins)
///     statuses = "200..=299, 999"
///
///     [[remap]]                      # the first that matches rewrites a URL found
///     pattern = "^https://example\\.org/"
///     replacement = "http://staging.example.org/"
///
///     [severity]                     # error or warning; only errors fail a crawl
///     orphan = "warning"
///     external-5xx = "error"
///
///     [politeness]
///     delay_ms = 200                 # --delay
///     external_delay_ms = 1000       # --external-delay
///     host_concurrency = 2           # --host-concurrency
///
///     [network]
///     profile = "3GFast"             # --network
///
///     [[budget]]                     # as in a budget file (--budgets)
///     load_ms = 3000
///
/// Every key is optional. A flag that a key mirrors wins over it.
package struct PolicyFile: Sendable {
    /// The name navwatch looks for in the working directory.
    package static let defaultName = "navwatch.toml"
    /// The keys of the file, of `[politeness]`, of `[[accept]]` and of `[[remap]]`.
    package static let keys = ["ignore", "accept", "remap", "severity", "politeness", "network", "budget"]
    package static let politenessKeys = ["delay_ms", "external_delay_ms", "host_concurrency"]

    /// Regular expressions of URLs the crawl neither follows nor checks.
    package var ignore: [String] = []
    package var links = LinkPolicy()
    package var remaps: [URLRemap] = []
    /// Milliseconds between two requests to the same host.
    package var delayMs: Int?
    package var externalDelayMs: Int?
    /// Pages and checks in flight per host, across all workers.
    package var hostConcurrency: Int?
    /// The `[[budget]]` tables; nil when the file has none.
    package var budgets: BudgetFile?
    /// `[network] profile`: what pages load over.
    package var network: NetworkProfile?

    package init() {}

    /// Reads the file at `path`; a `TOMLFileError` names what is wrong and where.
    package init(contentsOf path: String) throws(TOMLFileError) {
        try self.init(TOMLDocument(contentsOf: path, kind: "policy file"))
    }

    /// Reads a policy from TOML `text`; `name` is what errors call the file.
    package init(_ text: String, name: String) throws(TOMLFileError) {
        try self.init(TOMLDocument(text, name: name))
    }

    private init(_ document: TOMLDocument) throws(TOMLFileError) {
        let (table, lines) = (document.table, document.lines)
        let fail = document.error
        for key in table.keys where !Self.keys.contains(key) {
            throw fail(lines.first(key), "unknown key \(key) (one of \(Self.keys.joined(separator: ", ")))")
        }
        if let value = table["ignore"] {
            guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
                throw fail(lines.first("ignore"), "ignore must be an array of strings (regular expressions)")
            }
            for pattern in array.compactMap(\.string) where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw fail(lines.first("ignore"), "ignore: \(pattern) is not a regular expression")
            }
            ignore = array.compactMap(\.string)
        }
        for (number, entry) in try Self.tables(table, "accept", lines: lines, fail: fail).enumerated() {
            let line = { (key: String) in lines.line(of: key, in: "accept", number: number + 1) }
            try Self.only(["pattern", "statuses"], in: entry, table: "[[accept]] \(number + 1)", line: line, fail: fail)
            let pattern = try Self.pattern(entry, "pattern", table: "[[accept]] \(number + 1)", optional: true, line: line, fail: fail)
            guard let text = entry["statuses"]?.string else {
                throw fail(line("statuses"), "[[accept]] \(number + 1): statuses must be a string such as \"200..=299, 403\"")
            }
            guard let statuses = StatusRanges(text) else {
                throw fail(line("statuses"), "[[accept]] \(number + 1): statuses: \(text) is not a list of statuses and ranges "
                           + "from 100 to 999 (such as \"200..=299, 403\")")
            }
            links.acceptances.append(try! LinkPolicy.Acceptance(pattern: pattern, statuses: statuses))
        }
        for (number, entry) in try Self.tables(table, "remap", lines: lines, fail: fail).enumerated() {
            let line = { (key: String) in lines.line(of: key, in: "remap", number: number + 1) }
            try Self.only(["pattern", "replacement"], in: entry, table: "[[remap]] \(number + 1)", line: line, fail: fail)
            let pattern = try Self.pattern(entry, "pattern", table: "[[remap]] \(number + 1)", optional: false, line: line, fail: fail)!
            guard let replacement = entry["replacement"]?.string else {
                throw fail(line("replacement"), "[[remap]] \(number + 1): replacement must be a string")
            }
            remaps.append(try! URLRemap(pattern: pattern, replacement: replacement))
        }
        if let value = table["severity"] {
            guard let severity = value.table else { throw fail(lines.first("severity"), "severity must be a table: write [severity]") }
            for key in severity.keys {
                let line = lines.line(of: key, in: "severity")
                guard LinkPolicy.severityKeys.contains(key) else {
                    throw fail(line, "[severity]: \(key) is not a kind of problem (one of \(LinkPolicy.severityKeys.joined(separator: ", ")))")
                }
                guard let level = severity[key]?.string.flatMap(LinkPolicy.Severity.init(rawValue:)) else {
                    throw fail(line, "[severity]: \(key) must be \"error\" or \"warning\"")
                }
                links.severities[key] = level
            }
        }
        if let value = table["politeness"] {
            guard let politeness = value.table else {
                throw fail(lines.first("politeness"), "politeness must be a table: write [politeness]")
            }
            for key in politeness.keys {
                let line = lines.line(of: key, in: "politeness")
                guard Self.politenessKeys.contains(key) else {
                    throw fail(line, "[politeness]: \(key) is not a politeness key (one of \(Self.politenessKeys.joined(separator: ", ")))")
                }
                let least = key == "host_concurrency" ? 1 : 0
                guard let number = politeness[key]?.int, number >= least else {
                    throw fail(line, "[politeness]: \(key) must be a whole number of \(least) or more")
                }
                switch key {
                case "delay_ms": delayMs = number
                case "external_delay_ms": externalDelayMs = number
                default: hostConcurrency = number
                }
            }
        }
        if let value = table["network"] {
            guard let network = value.table else { throw fail(lines.first("network"), "network must be a table: write [network]") }
            for key in network.keys where key != "profile" {
                throw fail(lines.line(of: key, in: "network"), "[network]: \(key) is not a network key (profile)")
            }
            if let profile = network["profile"] {
                let line = lines.line(of: "profile", in: "network")
                guard let text = profile.string else { throw fail(line, "[network]: profile must be a string such as \"3GFast\"") }
                do { self.network = try NetworkProfile(parsing: text) } catch { throw fail(line, "[network]: profile: \(error)") }
            }
        }
        if table["budget"] != nil { budgets = try BudgetFile(document, only: false) }
    }

    /// The tables of the array `key` (`[[key]]`), none when it is absent.
    private static func tables(_ table: TOMLTable, _ key: String, lines: TOMLLines,
                               fail: (Int, String) -> TOMLFileError) throws(TOMLFileError) -> [TOMLTable] {
        guard let value = table[key] else { return [] }
        guard let array = value.array, array.allSatisfy({ $0.table != nil }) else {
            throw fail(lines.first(key), "\(key) must be an array of tables: write [[\(key)]]")
        }
        return array.compactMap(\.table)
    }

    private static func only(_ keys: [String], in entry: TOMLTable, table: String, line: (String) -> Int,
                             fail: (Int, String) -> TOMLFileError) throws(TOMLFileError) {
        for key in entry.keys where !keys.contains(key) {
            throw fail(line(key), "\(table): \(key) is not a key of it (one of \(keys.joined(separator: ", ")))")
        }
    }

    private static func pattern(_ entry: TOMLTable, _ key: String, table: String, optional: Bool, line: (String) -> Int,
                                fail: (Int, String) -> TOMLFileError) throws(TOMLFileError) -> String? {
        guard let value = entry[key] else {
            if optional { return nil }
            throw fail(line(key), "\(table): \(key) is missing")
        }
        guard let text = value.string else { throw fail(line(key), "\(table): \(key) must be a string (a regular expression)") }
        guard (try? NSRegularExpression(pattern: text)) != nil else {
            throw fail(line(key), "\(table): \(key): \(text) is not a regular expression")
        }
        return text
    }
}
