import ArgumentParser
import NavWatchCrawler

/// `--runs n` and `--settle ms`, which `navwatch URL` and `navwatch crawl`
/// take alike: how many loads of each page, and how long a finished page's
/// late window waits for quiet.
enum RunsArgument {
    /// The loads of a page `--runs` takes.
    static let allowed = 1...100

    /// Throws the one-line complaint about `runs` or `settle` (milliseconds), if any.
    static func validate(runs: Int, settle: Int) throws {
        guard settle >= 0 else { throw ValidationError("--settle must be 0 or more milliseconds") }
        guard allowed.contains(runs) else {
            throw ValidationError("--runs must be from \(allowed.lowerBound) to \(allowed.upperBound)")
        }
    }
}
