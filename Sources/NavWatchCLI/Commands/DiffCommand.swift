import ArgumentParser
import NavWatchReports
import Foundation
import NavWatchCrawler

/// `navwatch diff OLD NEW`: what changed between two crawls of a site.
package struct DiffCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List what changed between two crawl databases, page by page.",
        discussion: """
            Pages added and removed; outcome, status, redirect and title changes; pages that became slower; \
            broken links, missing fragments, orphans, page errors and console errors that are new or fixed \
            (links with the pages that link to them); and, given both crawls' --screenshots directories, \
            pages whose pictures changed, with a difference image. A page loaded several times in both crawls \
            (crawl --runs) counts as slower when its finish times are larger by a one-sided Mann-Whitney U test \
            at p <= --level (default 0.01) and its median grew by more than --slower-by and --slower-by-ms \
            (default 10 % and 20 ms); a page loaded once on either side, when its time to finish grew by more \
            than both (default 50 % and 500 ms: one load varies from run to run). Exits 0 whatever changed, \
            unless --fail-on-regressions.
            """)

    package typealias Format = DiffListing.Format

    @Argument(help: "The old crawl database: a SQLite file or a postgres:// address.")
    package var old: String

    @Argument(help: "The new crawl database.")
    package var new: String

    @Option(name: .long, help: "text, markdown, jsonl, junit, html or github (workflow commands: an error per regression).")
    package var format: Format = .text

    @Option(name: .long, help: "Write to this file instead of standard output.")
    package var out: String?

    @Option(name: .customLong("slower-by"), help: ArgumentHelp(
        "Percent a page's time to finish (median) must grow by to count as slower (default 10 with runs, else 50).",
        valueName: "percent"))
    package var slowerBy: Double?

    @Option(name: .customLong("slower-by-ms"), help: ArgumentHelp(
        "Milliseconds it must grow by as well (default 20 with runs, else 500).", valueName: "ms"))
    package var slowerByMs: Double?

    @Option(name: .long, help: ArgumentHelp(
        "The significance level of the test of pages loaded several times (default 0.01).", valueName: "p"))
    package var level: Double = CrawlDiff.SlowerThresholds.defaultLevel

    @Option(name: .customLong("old-screenshots"), help: ArgumentHelp("The old crawl's --screenshots directory.", valueName: "dir"))
    package var oldScreenshots: String?

    @Option(name: .customLong("new-screenshots"), help: ArgumentHelp("The new crawl's --screenshots directory.", valueName: "dir"))
    package var newScreenshots: String?

    @Option(name: .customLong("visual-tolerance"), help: "Percent of a page's pixels that may change before its picture counts as changed.")
    package var visualTolerance: Double = 0.1

    @Option(name: .long, help: ArgumentHelp("Write the difference images of changed pictures in this directory.", valueName: "dir"))
    package var images = "navwatch-diff-images"

    @OptionGroup package var policyOptions: PolicyOptions

    @Flag(name: .customLong("fail-on-regressions"),
          help: "Exit 1 when a page was removed or is no longer ok, became slower, has a new problem or a changed picture.")
    package var failOnRegressions = false

    package init() {}

    /// The largest `--slower-by`, in percent: a page a hundred times slower.
    static let slowerByLimit = 10_000.0
    /// The largest `--slower-by-ms`: an hour.
    static let slowerByMsLimit = 3_600_000.0

    package func validate() throws {
        if let slowerBy, !(0...Self.slowerByLimit).contains(slowerBy) {
            throw ValidationError("--slower-by must be from 0 to \(Int(Self.slowerByLimit)) percent")
        }
        if let slowerByMs, !(0...Self.slowerByMsLimit).contains(slowerByMs) {
            throw ValidationError("--slower-by-ms must be from 0 to \(Int(Self.slowerByMsLimit)) milliseconds (an hour)")
        }
        guard level > 0, level < 1 else { throw ValidationError("--level must be between 0 and 1, such as 0.01") }
        guard (0...100).contains(visualTolerance) else { throw ValidationError("--visual-tolerance must be a percent from 0 to 100") }
        guard (oldScreenshots == nil) == (newScreenshots == nil) else {
            throw ValidationError("--old-screenshots and --new-screenshots go together")
        }
    }

    package func run() async throws {
        let policy = try policyOptions.policy().links
        let (oldReports, oldLinks) = try await CrawlDatabase.read(old, policy: policy)
        let (newReports, newLinks) = try await CrawlDatabase.read(new, policy: policy)
        var visual: [CrawlDiff.VisualChange] = []
        if let oldScreenshots, let newScreenshots {
            visual = try compareScreenshots(CrawlDiff.screenshotPairs(old: oldReports, new: newReports),
                                            old: oldScreenshots, new: newScreenshots)
        }
        let diff = CrawlDiff(old: oldReports, oldLinks, new: newReports, newLinks,
                             slower: .init(percent: slowerBy, milliseconds: slowerByMs, level: level), visual: visual, policy: policy)
        var listing = DiffListing(diff: diff, old: CrawlDatabase.shown(old), new: CrawlDatabase.shown(new))
        if !visual.isEmpty { listing.images = ReportCommand.relativePath(of: images, from: out ?? "navwatch-diff.html") }
        try ExportCommand.write(listing.render(format), to: out)
        if failOnRegressions, !diff.regressions.isEmpty { throw ExitCode(1) }
    }

    /// The pages whose pictures changed by more than the tolerance, each
    /// with a difference image in `images`; pages whose screenshot file is
    /// missing in either directory are left out.
    private func compareScreenshots(_ pairs: [(url: String, old: String, new: String)], old: String,
                                    new: String) throws -> [CrawlDiff.VisualChange] {
        for directory in [old, new] where !FileManager.default.fileExists(atPath: directory) {
            throw InputError("no screenshot directory at \(directory)")
        }
        do {
            try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        } catch {
            throw InputError("cannot create the image directory \(images): \(InputError.reason(error))")
        }
        var changes: [CrawlDiff.VisualChange] = []
        for pair in pairs {
            let oldFile = old + "/" + pair.old, newFile = new + "/" + pair.new
            guard FileManager.default.fileExists(atPath: oldFile), FileManager.default.fileExists(atPath: newFile) else { continue }
            let name = pair.new.hasSuffix(".png") ? String(pair.new.dropLast(4)) + "-diff.png" : pair.new + "-diff.png"
            let comparison: ScreenshotComparison
            do {
                comparison = try ScreenshotComparison(old: oldFile, new: newFile, differenceImage: images + "/" + name)
            } catch {
                throw InputError(error.description)
            }
            guard comparison.percent > visualTolerance else {
                try? FileManager.default.removeItem(atPath: images + "/" + name)
                continue
            }
            changes.append(CrawlDiff.VisualChange(url: pair.url, percent: comparison.percent, image: name))
        }
        return changes
    }
}

extension DiffListing.Format: ExpressibleByArgument {}
