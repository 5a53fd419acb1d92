import ArgumentParser
import NavWatchReports
import Foundation
import NavWatchCrawler

/// `navwatch links`: every link target of a crawl with every page that links
/// to it, or only the broken ones.
package struct LinksCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "List the link targets of a crawl database with every page that links to them.",
        discussion: """
            A target is broken when it answered 400 or more (after redirects), failed, timed out, or was a \
            download where a page was expected; a link to page#id is broken when that page has no element \
            with that id or name. Links outside the crawl's scope count only when the crawl ran with \
            --check-external. Pages that only a sitemap leads to are listed as orphans.
            """)

    package typealias Format = LinkListing.Format

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Flag(name: .long, help: "Only broken targets.")
    package var broken = false

    @Option(name: .long, help: "text, jsonl, csv, markdown, junit or github (workflow commands: an annotation per problem).")
    package var format: Format = .text

    @Option(name: .long, help: "Write to this file instead of standard output.")
    package var out: String?

    @OptionGroup package var policyOptions: PolicyOptions

    package init() {}

    package func run() async throws {
        let policy = try policyOptions.policy().links
        let result = try await CrawlDatabase.readLinks(db, policy: policy)
        try ExportCommand.write(LinkListing(result, brokenOnly: broken, policy: policy).render(format), to: out)
    }
}

extension LinkListing.Format: ExpressibleByArgument {}
