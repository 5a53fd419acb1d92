import Foundation
import TOMLKit

/// A budget file: limits per URL pattern for the pages of a crawl, in TOML.
///
///     [[budget]]                    # every page
///     load_ms = 2000
///     bytes = 1_000_000
///     page_errors = 0
///
///     [[budget]]
///     pattern = "/docs/"            # a regular expression, found anywhere in the URL
///     load_ms = 3000
///     [budget.bytes_by_type]
///     script = 300_000
///
///     [[budget]]
///     network = "3GFast"            # only pages loaded over this profile (--network)
///     load_ms = 4000
///
/// A page takes the limits of every `[[budget]]` whose pattern its URL
/// matches (and whose network, when it names one, the page loaded over);
/// where several set the same limit, the last one in the file wins. With
/// repeated loads (`--runs`), timings are checked on their medians.
/// Only pages loaded in a view count (not skipped, blocked or checked with
/// plain HTTP); a limit the page has no measure for (no load event, an
/// engine without LCP) is not checked. A page breaches a limit when its
/// measure is above it; each breach is reported once, with the measure and
/// the limit.
package struct BudgetFile: Sendable {
    package var budgets: [Budget]

    /// The resource types `bytes_by_type` may name (`RequestRecord.ResourceType`).
    private static let resourceTypes = RequestRecord.ResourceType.allCases.map(\.rawValue)

    /// Every key a `[[budget]]` may have.
    package static let keys = ["pattern", "network", "bytes_by_type"] + BudgetMetric.byKey.keys.sorted()

    package init(budgets: [Budget]) {
        self.budgets = budgets
    }

    /// Reads the file at `path`; a `TOMLFileError` names what is wrong and where.
    package init(contentsOf path: String) throws(TOMLFileError) {
        try self.init(TOMLDocument(contentsOf: path, kind: "budget file"), only: true)
    }

    /// Reads budgets from TOML `text`; `name` is what errors call the file.
    package init(_ text: String, name: String) throws(TOMLFileError) {
        try self.init(TOMLDocument(text, name: name), only: true)
    }

    /// Reads the `[[budget]]` tables of `document`; with `only`, any other key is an error (else it is the caller's).
    init(_ document: TOMLDocument, only: Bool) throws(TOMLFileError) {
        let (table, lines, name) = (document.table, document.lines, document.name)
        for key in table.keys where only && key != "budget" {
            throw document.error(lines.first(key), "unknown key \(key) (a budget file has [[budget]] tables)")
        }
        guard let entries = table["budget"] else { budgets = []; return }
        guard let array = entries.array else {
            throw TOMLFileError("\(name): line \(lines.first("budget")): budget must be an array of tables: write [[budget]]")
        }
        var budgets: [Budget] = []
        for (index, entry) in array.enumerated() {
            let number = index + 1
            func fail(_ key: String, _ problem: String) -> TOMLFileError {
                TOMLFileError("\(name): line \(lines.line(of: key, in: "budget", number: number)): [[budget]] \(number): \(key) \(problem)")
            }
            guard let budget = entry.table else { throw fail("budget", "must be a table") }
            var pattern: String?
            var network: String?
            var limits: [BudgetMetric: Double] = [:]
            for key in budget.keys {
                let value = budget[key]!
                if key == "pattern" {
                    guard let text = value.string else { throw fail(key, "must be a string (a regular expression)") }
                    guard (try? NSRegularExpression(pattern: text)) != nil else { throw fail(key, "is not a regular expression: \(text)") }
                    pattern = text
                } else if key == "network" {
                    guard let text = value.string else { throw fail(key, "must be a string (a network profile)") }
                    do { network = try NetworkProfile(parsing: text).name } catch { throw fail(key, "is not a network profile: \(error)") }
                } else if key == "bytes_by_type" {
                    guard let types = value.table else { throw fail(key, "must be a table of resource types ([budget.bytes_by_type])") }
                    for type in types.keys {
                        guard Self.resourceTypes.contains(type) else {
                            throw fail("\(key).\(type)", "is no resource type (one of \(Self.resourceTypes.joined(separator: ", ")))")
                        }
                        limits[.bytesOfType(type)] = try Self.limit(types[type]!) { fail("\(key).\(type)", $0) }
                    }
                } else if let metric = BudgetMetric.byKey[key] {
                    limits[metric] = try Self.limit(value) { fail(key, $0) }
                } else {
                    throw fail(key, "is not a budget key (one of \(Self.keys.joined(separator: ", ")))")
                }
            }
            do { budgets.append(try Budget(pattern: pattern, network: network, limits: limits, number: number)) } catch {
                throw fail("pattern", "is not a regular expression")
            }
        }
        self.budgets = budgets
    }

    /// A limit: a number of 0 or more.
    private static func limit(_ value: any TOMLValueConvertible,
                              _ fail: (String) -> TOMLFileError) throws(TOMLFileError) -> Double {
        let number = value.int.map(Double.init) ?? value.double
        guard let number, number >= 0, number.isFinite else { throw fail("must be a number of 0 or more") }
        return number
    }

    /// The limits that apply to `report`, by metric: each with the budget that set it (the last that matches).
    package func limits(for report: PageLoadReport) -> [(metric: BudgetMetric, limit: Double, budget: Budget)] {
        var found: [BudgetMetric: (Double, Budget)] = [:]
        for budget in budgets where budget.matches(report) {
            for (metric, limit) in budget.limits { found[metric] = (limit, budget) }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value.0, $0.value.1) }
    }

    /// Whether budgets apply to `report` at all: a page loaded in a view.
    package static func applies(to report: PageLoadReport) -> Bool {
        (report.outcome == .ok || report.outcome == .httpError) && report.checkedWith == nil
    }

    /// Every limit `report` went over, in the order of `limits(for:)`.
    package func breaches(of report: PageLoadReport) -> [BudgetBreach] {
        guard Self.applies(to: report) else { return [] }
        return limits(for: report).compactMap { metric, limit, budget in
            guard let measured = metric.measured(in: report), measured > limit else { return nil }
            return BudgetBreach(url: report.url, metric: metric, measured: measured, limit: limit, pattern: budget.pattern)
        }
    }
}

/// A budget file or policy file that cannot be used: one line saying what and where.
package struct TOMLFileError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
