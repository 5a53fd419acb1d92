import ArgumentParser
import Foundation
import NavWatchHTML

/// The time `HTMLParser` takes per page over every `.html` file below a
/// folder (a documentation site Debian ships, say), each read in memory
/// first: the static path's own cost, without the network or the store.
struct HTMLReadingTime: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "html-reading-time",
        abstract: "Milliseconds per page HTMLParser takes over the .html files below a folder.")

    @Argument(help: "The folder (such as /usr/share/doc/python3.11/html).")
    var root: String

    @Option(help: "How many times every page is read; the mean is printed.")
    var rounds = 3

    func run() throws {
        guard rounds > 0 else { throw ValidationError("--rounds must be at least 1") }
        guard let files = FileManager.default.enumerator(atPath: root) else {
            throw ValidationError("cannot read the folder \(root)")
        }
        let pages = try files.compactMap { $0 as? String }.filter { $0.hasSuffix(".html") }.sorted().map { path in
            (bytes: try [UInt8](Data(contentsOf: URL(fileURLWithPath: root).appendingPathComponent(path))),
             url: URL(string: "http://127.0.0.1:8080/")!.appendingPathComponent(path))
        }
        guard !pages.isEmpty else { throw ValidationError("no .html file below \(root)") }
        var links = 0
        let start = ContinuousClock.now
        for _ in 0..<rounds {
            for page in pages { links += (try? HTMLParser.parseNow(page.bytes, url: page.url))?.links.count ?? 0 }
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let bytes = pages.reduce(0) { $0 + $1.bytes.count }
        print(#"{"pages": \#(pages.count), "bytes": \#(bytes), "links": \#(links / rounds), "#
              + #""ms_per_page": \#((seconds * 1000 / Double(rounds * pages.count) * 1000).rounded() / 1000)}"#)
    }
}
