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
        print(json ? Self.json(counts) : TerminalText.lines(Self.lines(counts)), terminator: "")
    }

    static func lines(_ counts: CrawlCounts) -> [String] {
        var lines = [
            "done \(counts.reported) (\(TallyText.text(counts.tallies, failed: counts.failed)))"
                + ", leased \(counts.leased), queued \(counts.queued)",
        ]
        if !counts.workers.isEmpty {
            let width = max(6, counts.workers.map(\.worker.count).max() ?? 0)
            func pad(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
            lines.append("\(pad("worker"))  leased  loaded checked  failed")
            for worker in counts.workers {
                lines.append(pad(worker.worker) + [worker.leased, worker.loaded, worker.checked, worker.failed]
                    .map { String(repeating: " ", count: max(0, 8 - String($0).count)) + String($0) }.joined())
            }
        }
        return lines
    }

    static func json(_ counts: CrawlCounts) -> String {
        var object: [String: Any] = [
            "done": counts.reported, "failed": counts.failed, "leased": counts.leased, "queued": counts.queued,
            "workers": counts.workers.map {
                ["worker": $0.worker, "leased": $0.leased, "loaded": $0.loaded, "checked": $0.checked, "failed": $0.failed]
                    as [String: Any]
            },
        ]
        for tally in PageLoadReport.Tally.allCases { object[tally.rawValue] = counts.tallies[tally] ?? 0 }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
