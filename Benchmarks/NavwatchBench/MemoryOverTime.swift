import ArgumentParser
import Foundation
import NavWatch
import NavWatchCrawler
import WebKitThread

/// RSS of the whole process tree (this process and its WebKit processes)
/// while a pool of page loaders, the crawler's own, loads the site's pages
/// over and over: one sample at each checkpoint.
struct MemoryOverTime: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "memory")

    @Option(help: "A file with one page URL per line.")
    var urls: String

    @Option(help: "Page loads in all.")
    var loads = 5_000

    @Option(parsing: .upToNextOption, help: "Load counts after which to sample RSS.")
    var checkpoints: [Int] = [500, 5_000]

    @Option(help: "Page loaders in the pool.")
    var concurrency = 2

    @Option(help: "Pages a loader's view loads before a fresh one replaces it (the crawler's default when not given).")
    var recycleAfter: Int?

    func run() async throws {
        let pages = try String(contentsOfFile: urls, encoding: .utf8).split(separator: "\n").map(String.init)
        guard !pages.isEmpty else { throw ValidationError("\(urls) lists no URL") }
        let counter = LoadCounter(total: loads, checkpoints: Set(checkpoints))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, concurrency) {
                group.addTask {
                    let loader = await PageLoader(configuration: WebViewConfiguration(),
                                                  recycleAfter: recycleAfter ?? CrawlConfiguration(seeds: []).recycleAfter,
                                                  views: PageLoader.views(concurrency: concurrency))
                    while let index = await counter.take() {
                        let entry = FrontierEntry(url: pages[index % pages.count], depth: 0, parent: nil)
                        let result = try await Task { @WebKitActor in
                            try await loader.load(entry, timeout: .seconds(30))
                        }.value
                        await counter.done(ok: result.report.outcome == .ok)
                    }
                    await Task { @WebKitActor in loader.close() }.value
                }
            }
            try await group.waitForAll()
        }
        try printJSON(await counter.result())
    }
}

/// Hands out load numbers and samples RSS when a checkpoint's loads are done.
private actor LoadCounter {
    struct Result: Encodable {
        var loads = 0
        var failed = 0
        var rssMB: [String: Double] = [:]

        enum CodingKeys: String, CodingKey {
            case loads, failed
            case rssMB = "rss_mb"
        }
    }

    private let total: Int
    private let checkpoints: Set<Int>
    private var handedOut = 0
    private var state = Result()

    init(total: Int, checkpoints: Set<Int>) {
        self.total = total
        self.checkpoints = checkpoints
    }

    func take() -> Int? {
        guard handedOut < total else { return nil }
        handedOut += 1
        return handedOut - 1
    }

    func done(ok: Bool) {
        state.loads += 1
        if !ok { state.failed += 1 }
        if checkpoints.contains(state.loads) {
            state.rssMB[String(state.loads)] = ProcessTree.residentMegabytes(root: getpid())
        }
    }

    func result() -> Result { state }
}
