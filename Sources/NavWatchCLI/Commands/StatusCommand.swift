import ArgumentParser
import Foundation
import NavWatchReports
import NavWatchCrawler

/// `navwatch status`: how far the crawl in a database has got, per worker.
package struct StatusCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a crawl's progress: pages loaded, links checked, skipped, blocked and failed, leased and queued, in all and per worker.")

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    package var json = false

    package init() {}

    package func run() async throws {
        let counts = try await CrawlDatabase.with(db, reading: true) { store in
            do { return try await store.counts() } catch {
                throw InputError("cannot read the crawl in \(CrawlDatabase.shown(db)): \(InputError.reason(error))")
            }
        }
        print(json ? CrawlCountsText.json(counts) : TerminalText.lines(CrawlCountsText.lines(counts)), terminator: "")
    }
}
