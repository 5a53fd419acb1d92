import ArgumentParser
import Foundation
import NavWatchReports
import NavWatchCrawler

/// `navwatch report`: one self-contained HTML file about a crawl.
package struct ReportCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report of a crawl: figures, charts, the slowest, heaviest and failing pages, "
            + "redirect chains, broken links with the pages that link to them, and every page's request waterfall "
            + "and screenshot.")

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Option(name: .long, help: "The HTML file to write.")
    package var out = "navwatch-report.html"

    @Option(name: .long, help: "The directory the crawl's --screenshots went to, to show them.")
    package var screenshots: String?

    @OptionGroup package var policyOptions: PolicyOptions

    package init() {}

    /// Reads the crawl database a batch at a time and writes the report as
    /// it goes: memory stays the same whatever the size of the crawl.
    package func run() async throws {
        // A postgres:// address shows without its password.
        let source = CrawlDatabase.shown(db)
        let screenshots = screenshots.map { Self.relativePath(of: $0, from: out) }
        let policy = try policyOptions.policy().links
        let pages = try await CrawlDatabase.with(db, reading: true) { store in
            let output = try TextOutput(path: out)
            let pages: Int
            do {
                pages = try await HTMLReport.write(from: store, source: source, screenshots: screenshots,
                                                   links: try await LinkCheckResult.of(store, policy: policy), to: output)
            } catch {
                throw InputError("cannot read the crawl database \(source): \(InputError.reason(error))")
            }
            try output.finish()
            return pages
        }
        FileHandle.standardError.write(Data("report: \(pages) pages in \(out)\n".utf8))
    }

    /// `path` as the report at `report` refers to it: relative to the
    /// report's directory when it lies inside it, absolute otherwise;
    /// percent-encoded, as it goes into an `src` attribute.
    static func relativePath(of path: String, from report: String) -> String {
        let directory = URL(fileURLWithPath: report).deletingLastPathComponent().standardizedFileURL.path
        let target = URL(fileURLWithPath: path).standardizedFileURL.path
        let relative = target.hasPrefix(directory + "/") ? String(target.dropFirst(directory.count + 1)) : target
        return relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
    }
}

extension LinkCheckResult {
    /// The link check of the crawl in `store` under `policy`.
    static func of(_ store: any CrawlStore, policy: LinkPolicy) async throws -> LinkCheckResult {
        LinkCheckResult(graph: try await store.linkGraph(), reports: try await store.allReports(includingRequests: false),
                        policy: policy)
    }
}
