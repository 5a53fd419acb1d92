import ArgumentParser
import Foundation
import NavWatchReports
import NavWatch
import NavWatchCrawler

/// `navwatch export`: write a crawl database's reports as JSON Lines, CSV or HAR.
package struct ExportCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the reports of a crawl database as JSON Lines, CSV or HAR 1.2.")

    package enum Format: String, ExpressibleByArgument, Sendable, CaseIterable {
        case jsonl, csv, har
    }

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Option(name: .long, help: "jsonl, csv or har.")
    package var format: Format = .jsonl

    @Option(name: .long, help: "Write to this file instead of standard output.")
    package var out: String?

    package init() {}

    /// Reads the reports a batch at a time and writes each as it comes, so
    /// memory stays the same whatever the size of the crawl. CSV reads them
    /// twice: first for the columns of the pages' `data`.
    package func run() async throws {
        try await CrawlDatabase.with(db, reading: true) { store in
            let output = try TextOutput(path: out)
            let har = format == .har ? try HARWriter(output: output) : nil
            do {
                var dataColumns = ReportExport.DataColumns()
                if format == .csv {
                    for try await report in store.storedReports(includingRequests: false) { dataColumns.add(report.data) }
                    output.write(ReportExport.csvRow(ReportExport.csvColumns + dataColumns.names) + "\r\n")
                }
                for try await report in store.storedReports(includingRequests: format == .har) {
                    switch format {
                    case .jsonl: output.write(report.jsonLine + "\n")
                    case .csv:
                        output.write(ReportExport.csvRow(ReportExport.csvFields(report) + dataColumns.fields(report.data)) + "\r\n")
                    case .har: har?.add(report)
                    }
                }
            } catch {
                throw InputError("cannot read the crawl database \(CrawlDatabase.shown(db)): \(InputError.reason(error))")
            }
            if let har { try har.finish() } else { try output.finish() }
        }
    }

    /// Writes a command's output to the file `out` (replacing it), or to
    /// standard output when `out` is nil or `-`.
    static func write(_ text: String, to out: String?) throws(OutputError) {
        let output = try TextOutput(path: out)
        output.write(text)
        try output.finish()
    }
}
