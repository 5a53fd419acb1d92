import ArgumentParser
import Foundation
import NavWatchCrawler

/// `navwatch export`: write a crawl database's reports as JSON Lines, CSV or HAR.
public struct ExportCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the reports of a crawl database as JSON Lines, CSV or HAR 1.2.")

    public enum Format: String, ExpressibleByArgument, Sendable, CaseIterable {
        case jsonl, csv, har
    }

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    public var db = "navwatch-crawl.db"

    @Option(name: .long, help: "jsonl, csv or har.")
    public var format: Format = .jsonl

    @Option(name: .long, help: "Write to this file instead of standard output.")
    public var out: String?

    public init() {}

    public func run() async throws {
        let reports = try await CrawlDatabase.with(db, mustExist: true) { store in
            do { return try await store.allReports(includingRequests: format == .har) } catch {
                throw InputError("cannot read the crawl database \(CrawlDatabase.shown(db)): \(CrawlCommand.reason(error))")
            }
        }
        let text: String
        switch format {
        case .jsonl: text = reports.map { $0.jsonLine + "\n" }.joined()
        case .csv: text = ReportExport.csv(reports)
        case .har: text = ReportExport.har(reports)
        }
        try Self.write(text, to: out)
    }

    /// Writes a command's output to the file `out` (replacing it), or to
    /// standard output when `out` is nil or `-`.
    static func write(_ text: String, to out: String?) throws(InputError) {
        if let out, out != "-" {
            guard FileManager.default.createFile(atPath: out, contents: Data(text.utf8)) else {
                throw InputError("cannot write \(out)")
            }
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}

/// Report formats other tools read.
public enum ReportExport {
    public static let csvColumns = [
        "url", "final_url", "outcome", "skip_reason", "status", "mime", "title", "depth", "parent", "fetched_at",
        "error_kind", "error_message", "redirects", "commit_ms", "ttfb_ms", "dom_content_loaded_ms", "load_ms",
        "finish_ms", "first_contentful_paint_ms", "resources", "failed_resources", "transfer_bytes", "links", "attempts",
    ]

    /// RFC 4180 CSV with a header row.
    public static func csv(_ reports: [PageLoadReport]) -> String {
        let formatter = ISO8601DateFormatter()
        var rows = [csvColumns.joined(separator: ",")]
        for r in reports {
            let fields: [String?] = [
                r.url, r.finalURL, r.outcome.rawValue, r.skipReason?.rawValue, r.status.map(String.init), r.mime, r.title,
                String(r.depth), r.parent, formatter.string(from: r.fetchedAt), r.error?.kind, r.error?.message,
                String(r.redirects.count), number(r.timings.commit), number(r.timings.ttfb),
                number(r.timings.domContentLoaded), number(r.timings.load), number(r.timings.finish),
                number(r.timings.firstContentfulPaint), String(r.resources.count), String(r.resources.failed),
                String(r.resources.transferBytes), String(r.links), String(r.attempts),
            ]
            rows.append(csvRow(fields))
        }
        return rows.joined(separator: "\r\n") + "\r\n"
    }

    /// HAR 1.2: a page per loaded report, an entry per request (see `HARExport`).
    public static func har(_ reports: [PageLoadReport]) -> String {
        HARExport.har(reports)
    }

    private static func number(_ value: Double?) -> String? {
        value.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
    }

    /// One RFC 4180 row (without its line break); nil fields are empty.
    static func csvRow(_ fields: [String?]) -> String {
        fields.map { quote($0 ?? "") }.joined(separator: ",")
    }

    private static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
