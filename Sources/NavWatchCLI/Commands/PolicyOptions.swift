import ArgumentParser
import Foundation
import NavWatchCrawler

/// `--config FILE`: the policy file of the commands that check a crawl
/// (statuses accepted, severities, ignores, remaps, politeness, budgets).
package struct PolicyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The policy file (TOML); by default navwatch.toml in the working directory, when there is one.", valueName: "file"))
    package var config: String?

    package init() {}

    /// The policy of `--config`, else of `navwatch.toml` when the working
    /// directory has one, else the defaults; a bad file is one line.
    func policy() throws(InputError) -> PolicyFile {
        let path: String
        if let config {
            guard FileManager.default.fileExists(atPath: config) else { throw InputError("no policy file at \(config)") }
            path = config
        } else if FileManager.default.fileExists(atPath: PolicyFile.defaultName) {
            path = PolicyFile.defaultName
        } else {
            return PolicyFile()
        }
        do { return try PolicyFile(contentsOf: path) } catch { throw InputError(error.description) }
    }
}

extension CrawlDatabase {
    /// The reports of the crawl in `db` and their link check under `policy`,
    /// or the one-line error the command line prints.
    static func read(_ db: String, policy: LinkPolicy) async throws -> ([PageLoadReport], LinkCheckResult) {
        try await with(db, reading: true) { store in
            do {
                let reports = try await store.allReports(includingRequests: false)
                return (reports, LinkCheckResult(graph: try await store.linkGraph(), reports: reports, policy: policy))
            } catch {
                throw InputError("cannot read the crawl database \(shown(db)): \(InputError.reason(error))")
            }
        }
    }

    /// The link check of the crawl in `db` under `policy`, the reports read
    /// into it a batch at a time (`CrawlStore.linkCheckReports()`), or the
    /// one-line error the command line prints.
    static func readLinks(_ db: String, policy: LinkPolicy) async throws -> LinkCheckResult {
        try await with(db, reading: true) { store in
            do {
                return LinkCheckResult(graph: try await store.linkGraph(), reports: try await store.linkCheckReports(), policy: policy)
            } catch {
                throw InputError("cannot read the crawl database \(shown(db)): \(InputError.reason(error))")
            }
        }
    }
}
