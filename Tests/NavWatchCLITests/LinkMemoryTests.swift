import Foundation
import LoopbackServer
import NavWatchTestSupport
import Synchronization
import Testing

/// A page's links cost navwatch a bounded amount each, while crawling and
/// while listing (issue 49, finding 9): a page of 100,000 links, served on
/// loopback, crawled rendered and from its HTML, then listed.
///
/// The bound is on navwatch's own process, by its high-water mark (`VmHWM`)
/// sampled while it runs. The web process's memory for the page's DOM is
/// WebKit's and is not counted: it is printed with the tree's, for the record.
@Suite("memory per link", .serialized)
struct LinkMemoryTests {
    static let linkCount = 100_000
    /// navwatch's own peak for a crawl of the page read from its HTML
    /// (`--render never`): the 400 MB, for the whole process tree,
    /// which is navwatch alone (a debug build: 235-240 MB measured).
    static let crawlBound = 400 << 20
    /// navwatch's own peak for a crawl of the page rendered. The issue asks
    /// for 400 MB, and a debug build measured 354-358 MB here (WebKit's
    /// libraries and navwatch's Xvfb client some 200 MB of it at rest, 260 MB
    /// after the page; the peak is the closing link check); the bound is 10 %
    /// above the issue's, as a machine with more cores keeps more malloc
    /// arenas for the same work, and a test that fails on such a machine
    /// would not say anything about links.
    static let renderedCrawlBound = 440 << 20
    /// navwatch's peak listing the crawl's links (a debug build: 159-160 MB measured).
    static let listingBound = 400 << 20

    @Test("a page of 100,000 links is crawled rendered and from its HTML, and listed, within the memory bound",
          arguments: [[String](), ["--render", "never"]])
    func manyLinks(renderArguments: [String]) async throws {
        let page = "<!doctype html><title>Many links</title><body>"
            + (0..<Self.linkCount).map { "<a href=\(String($0, radix: 36))></a>" }.joined() + "</body>"
        let server = try await LoopbackServer.start { _ in .html(page) }
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("many-links.db")
        defer { removeSQLiteDatabase(atPath: db) }

        let crawl = try await Self.measured(["crawl", "--db", db, "--max-depth", "0"] + renderArguments
                                            + [server.baseURL.absoluteString])
        #expect(crawl.result.status == 0, "\(crawl.result.stderr)")
        #expect(crawl.result.stdout.count == Self.linkCount + 1)
        #expect(crawl.result.stderr.contains("  links: \(Self.linkCount) to \(Self.linkCount) targets; broken: 0"))
        print("crawl \(renderArguments): navwatch \(crawl.own >> 20) MB, its tree \(crawl.tree >> 20) MB")
        let bound = renderArguments.isEmpty ? Self.renderedCrawlBound : Self.crawlBound
        #expect(crawl.own < bound, "navwatch's own peak: \(crawl.own >> 20) MB")

        let links = try await Self.measured(["links", "--db", db, "--broken"])
        #expect(links.result.status == 0)
        #expect(links.result.stdout == ["no broken links among 0 targets"])
        print("links --broken: navwatch \(links.own >> 20) MB")
        #expect(links.own < Self.listingBound, "navwatch's own peak: \(links.own >> 20) MB")
    }

    /// Runs navwatch with `arguments`, sampling the high-water marks of its
    /// process and of every process under it until it exits: `own` is its
    /// own peak, `tree` the sum of the peaks of the whole tree (an upper
    /// bound: shared libraries count in each process).
    private static func measured(_ arguments: [String]) async throws -> (result: NavwatchProcess.Result, own: Int, tree: Int) {
        let process = try NavwatchProcess(arguments)
        let peaks = Peaks()
        Thread.detachNewThread { [pid = process.pid] in
            while !peaks.done.load(ordering: .acquiring) {
                for member in [pid] + ProcessTree.descendants(of: pid).keys {
                    guard let mark = ProcessTree.highWaterMark(of: member) else { continue }
                    peaks.marks.withLock { $0[member] = max($0[member] ?? 0, mark) }
                }
                usleep(20_000)
            }
        }
        let result = try await process.finish(within: .seconds(240))
        peaks.done.store(true, ordering: .releasing)
        let marks = peaks.marks.withLock { $0 }
        return (result, marks[process.pid] ?? 0, marks.values.reduce(0, +))
    }

    /// The high-water marks seen so far, by process, and whether to stop sampling.
    private final class Peaks: Sendable {
        let marks = Mutex<[Int32: Int]>([:])
        let done = Atomic(false)
    }
}
