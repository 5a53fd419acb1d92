import ArgumentParser
import NavWatchReports
import Foundation
import NavWatchCrawler

/// `navwatch budgets`: every page of a crawl that went over a limit of a
/// budget file, with the measure and the limit.
package struct BudgetsCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "budgets",
        abstract: "List the pages of a crawl database that go over the limits of a budget file.",
        discussion: """
            A budget file is TOML: [[budget]] tables with an optional pattern (a regular expression found in \
            the URL) and limits: load_ms, fcp_ms, lcp_ms, bytes, requests, console_errors, page_errors, and \
            bytes per resource type under [budget.bytes_by_type]. Where several budgets match a page, the last \
            one that sets a limit wins. Exits 0 whatever it finds; navwatch crawl --fail-on budgets fails a build.
            """)

    package typealias Format = BudgetListing.Format

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Option(name: .long, help: "The budget file (TOML); by default the [[budget]] tables of the policy file.")
    package var budgets: String?

    @Option(name: .long, help: "text, markdown, junit, json or github (workflow commands: an annotation per breach).")
    package var format: Format = .text

    @Option(name: .long, help: "Write to this file instead of standard output.")
    package var out: String?

    @OptionGroup package var policyOptions: PolicyOptions

    package init() {}

    package func run() async throws {
        let policy = try policyOptions.policy()
        guard let file = try budgets.map({ path throws(InputError) in try BudgetFile.read(path) }) ?? policy.budgets else {
            throw InputError("give a budget file with --budgets FILE, or [[budget]] tables in the policy file")
        }
        let reports = try await CrawlDatabase.with(db, reading: true) { store in
            do { return try await store.allReports(includingRequests: false) } catch {
                throw InputError("cannot read the crawl database \(CrawlDatabase.shown(db)): \(InputError.reason(error))")
            }
        }
        try ExportCommand.write(BudgetListing(reports, budgets: file, policy: policy.links).render(format), to: out)
    }
}

extension BudgetFile {
    /// The budget file at `path`, or the one-line error the command line prints.
    static func read(_ path: String) throws(InputError) -> BudgetFile {
        do { return try BudgetFile(contentsOf: path) } catch { throw InputError(error.description) }
    }
}

extension BudgetListing.Format: ExpressibleByArgument {}
