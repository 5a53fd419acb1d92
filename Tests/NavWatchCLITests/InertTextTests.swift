import Foundation
@testable import NavWatchReports
import LoopbackServer
@testable import NavWatchCLI
import NavWatchTestSupport
import Synchronization
import Testing

@Suite("Strangers' text: inert in every text output, and text in CSV")
struct InertTextTests {
    /// Every character a page could use to drive a terminal or reorder a line:
    /// ESC sequences (clear the screen, set the window's title, colour), BEL,
    /// C1's CSI, a right-to-left override and an isolate.
    static let hostile = "A\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}[31mred\u{9B}1m\u{202E}B\u{2066}C"

    /// `/` (its title set by a script) links to
    /// `/gone` (404) with a hostile link text; from the second crawl on, the title changes.
    private final class HostileSite: Sendable {
        let second = Mutex(false)

        func route(_ request: LoopbackRequest) -> LoopbackResponse {
            switch request.path {
            case "/":
                let suffix = second.withLock { $0 } ? " again" : ""
                let title = InertTextTests.hostile.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
                return .html("""
                    <!doctype html><title>plain</title>
                    <script>document.title = "\(title)\(suffix)"</script>
                    <a href="/gone">\(InertTextTests.hostile)</a><a href="/formula">=1+1</a>
                    """)
            case "/formula": return .html(#"<!doctype html><title>=HYPERLINK("http://evil.test/","x")</title>"#)
            default: return .text("Not here", status: 404)
            }
        }
    }

    /// What a terminal must never receive from a page.
    static func activeScalars(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: return false
            case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test("watch lines and summary, crawl's summary, links, diff and status print no control, C1 or bidi character")
    func terminalOutputs() async throws {
        let site = HostileSite()
        let server = try await LoopbackServer.start(route: { site.route($0) })
        defer { Task { await server.shutdown() } }
        let first = temporaryPath("inert-1.db"), second = temporaryPath("inert-2.db")
        defer {
            for db in [first, second] {
                removeSQLiteDatabase(atPath: db)
            }
        }
        let shown = #"A\u001b[2J\u001b]0;owned\u0007\u001b[31mred\u009b1m\u202eB\u2066C"#

        let watch = try await NavwatchProcess.run([server.url("/").absoluteString])
        let crawl = try await NavwatchProcess.run(["crawl", "--db", first, server.url("/").absoluteString])
        site.second.withLock { $0 = true }
        let again = try await NavwatchProcess.run(["crawl", "--db", second, server.url("/").absoluteString])
        let links = try await NavwatchProcess.run(["links", "--db", first, "--broken"])
        let diff = try await NavwatchProcess.run(["diff", first, second])
        let status = try await NavwatchProcess.run(["status", "--db", first])
        // The texts for people: a crawl's standard output is JSON Lines, whose escaping is JSON's.
        let texts = [("watch", watch.stdout.joined(separator: "\n") + watch.stderr), ("crawl", crawl.stderr),
                     ("crawl again", again.stderr)]
            + [("links", links), ("diff", diff), ("status", status)].map { ($0, $1.stdout.joined(separator: "\n") + $1.stderr) }
        for (name, text) in texts {
            #expect(Self.activeScalars(text).isEmpty, "\(name): \(text)")
        }
        // Still recognisable: each character escaped where it stood.
        let title = #""\#(shown)""#
        #expect(watch.stdout.contains { $0.hasSuffix("finished          \(server.url("/").absoluteString)  200  text/html  \(title)") },
                "\(watch.stdout)")
        #expect(watch.stdout.last?.hasSuffix(title) == true, "\(watch.stdout)")
        #expect(links.stdout.contains(#"    linked from \#(server.url("/").absoluteString)  "\#(shown)""#), "\(links.stdout)")
        #expect(diff.stdout.contains(#"  title: "\#(shown)" → "\#(shown) again""#), "\(diff.stdout)")
    }

    @Test("CSV cells a spreadsheet would evaluate are text: a quote before them; numbers stay numbers")
    func csvInjection() async throws {
        let site = HostileSite()
        let server = try await LoopbackServer.start(route: { site.route($0) })
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("inert-csv.db")
        defer { removeSQLiteDatabase(atPath: db) }
        _ = try await NavwatchProcess.run(["crawl", "--db", db, server.url("/").absoluteString])

        let reports = try await NavwatchProcess.run(["export", "--db", db, "--format", "csv"])
        let formulaRow = try #require(reports.stdout.first { $0.contains("/formula,") }, "\(reports.stdout)")
        #expect(formulaRow.contains(#",ok,,200,text/html,"'=HYPERLINK(""http://evil.test/"",""x"")",1,"#), "\(formulaRow)")
        let links = try await NavwatchProcess.run(["links", "--db", db, "--format", "csv"])
        let linkRow = try #require(links.stdout.first { $0.contains("/formula,") }, "\(links.stdout)")
        #expect(linkRow.hasSuffix(#","'=1+1",/formula,a,,"# + "\r"), "\(linkRow)")
        // What a spreadsheet gets: Python's csv module reads the cell back as the text with its quote.
        let read = try await Self.python(reading: reports.stdout.joined(separator: "\n"),
                                   "print([r[6] for r in csv.reader(sys.stdin) if r[0].endswith('/formula')][0])")
        #expect(read == #"'=HYPERLINK("http://evil.test/","x")"# + "\n")
    }

    @Test("Python's csv reads a row of escaped controls back: one row, its cells as written")
    func csvReadBack() async throws {
        let csv = ReportExport.csvRow([Self.controls, "x,\"y\"", "3"]) + "\r\n"
        let read = try await Self.python(reading: csv, "print([' | '.join(r) for r in csv.reader(sys.stdin)])")
        #expect(read == "['\(Self.escaped.replacingOccurrences(of: "\\", with: "\\\\")) | x,\"y\" | 3']\n")
    }

    /// What a Python script (with `csv` and `sys` imported) prints reading `input` as its standard input.
    /// (`NavwatchProcess` waits for its exit, within 30 s, as Foundation's `Process` alone may never
    /// see it beside a WebKit process.)
    private static func python(reading input: String, _ script: String) async throws -> String {
        let file = temporaryPath("input.csv")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(input.utf8).write(to: URL(fileURLWithPath: file))
        // Read as standard input is on Linux: bytes as UTF-8, lines split at line feeds only.
        let opening = "import csv,sys; sys.stdin = open(sys.argv[1], encoding='utf-8', newline='\\n'); "
        let result = try await NavwatchProcess(["python3", "-c", opening + script, file], executable: "/usr/bin/env")
            .finish(within: .seconds(30))
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.map { $0 + "\n" }.joined()
    }

    @Test("a CSV cell: formulas get a quote, numbers of every sign stay numbers, a tab or CR is escaped (so no formula)")
    func csvCells() {
        #expect(ReportExport.csvRow(["-3", "+4.5e-3", ".5", "-1+1", "=A1", "@SUM(A1)", "\tx", "\rx", "-", "plain", "a,b"])
                == #"-3,+4.5e-3,.5,"'-1+1","'=A1","'@SUM(A1)",\tx,\rx,"'-",plain,"a,b""#)
    }

    /// A line feed, a carriage return, ESC, BEL, a C1 control (CSI) and a right-to-left override.
    static let controls = "a\nb\rc\u{1B}d\u{07}e\u{9B}f\u{202E}g"
    /// `controls` as every format writes it.
    static let escaped = #"a\nb\rc\u001bd\u0007e\u009bf\u202eg"#

    @Test("each format writes a stranger's controls escaped, on the row they came in")
    func controlsInEveryFormat() {
        #expect(TerminalText.lines(["title: " + Self.controls, "2 changes"]) == "title: \(Self.escaped)\n2 changes\n")
        #expect(ReportExport.csvRow([Self.controls, "1", "x\u{1B},\"y\""]) == #"\#(Self.escaped),1,"x\u001b,""y""""#)
        #expect(Markdown.cell(Self.controls + "|h") == Self.escaped + #"\|h"#)
        #expect(GitHubAnnotations.line(.error, title: "t:\n" + Self.controls, message: "100% " + Self.controls)
                == #"::error title=t%3A%0Aa%0Ab%0Dc\u001bd\u0007e\u009bf\u202eg::100%25 a%0Ab%0Dc\u001bd\u0007e\u009bf\u202eg"#)
    }

    /// `/` links to itself with a text fragment whose terms hold line feeds
    /// that, printed raw, would forge a listing's lines; only from the second crawl on.
    private final class ForgingSite: Sendable {
        let second = Mutex(false)
        static let fragment = "#:~:text=fine%0A%E2%9C%94%20https://forged.example/%20ok%0Ano%20broken%20links"

        func route(_ request: LoopbackRequest) -> LoopbackResponse {
            guard request.path == "/" else { return .text("Not here", status: 404) }
            let link = second.withLock { $0 } ? #"<a href="/\#(Self.fragment)">fine</a>"# : ""
            return .html("<!doctype html><title>plain</title><p>plain text</p>\(link)")
        }
    }

    @Test("a line feed in a text fragment forges no line in links, diff or crawl's summary against a baseline")
    func forgedLines() async throws {
        let site = ForgingSite()
        let server = try await LoopbackServer.start(route: { site.route($0) })
        defer { Task { await server.shutdown() } }
        let first = temporaryPath("forged-1.db"), second = temporaryPath("forged-2.db")
        defer {
            for db in [first, second] { removeSQLiteDatabase(atPath: db) }
        }
        let seed = server.url("/").absoluteString
        _ = try await NavwatchProcess.run(["crawl", "--db", first, seed])
        site.second.withLock { $0 = true }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", second, "--baseline", first, seed])
        let links = try await NavwatchProcess.run(["links", "--db", second, "--broken"])
        let diff = try await NavwatchProcess.run(["diff", first, second])
        let forged = ["✔ https://forged.example/ ok", "no broken links"]
        let outputs = [("crawl", crawl.stderr.split(separator: "\n").map(String.init)), ("links", links.stdout), ("diff", diff.stdout)]
        for (name, lines) in outputs {
            #expect(!lines.contains { line in forged.contains { line.hasSuffix($0) } }, "\(name): \(lines)")
            #expect(lines.allSatisfy { Self.activeScalars($0).isEmpty }, "\(name): \(lines)")
        }
        let target = seed + "#:~:text=fine%0A%E2%9C%94%20https://forged.example/%20ok%0Ano%20broken%20links"
        let detail = #"no text matching "fine\n✔ https://forged.example/ ok\nno broken links" on the rendered page"#
        #expect(links.stdout == ["✘ \(target)  missing text fragment: \(detail)",
                                 #"    linked from \#(seed)  "fine""#,
                                 "1 broken target, 1 link to them on 1 page"])
        #expect(diff.stdout.contains("! new missing-text-fragment: \(detail)"), "\(diff.stdout)")
        #expect(crawl.stderr.contains("\n    new missing-text-fragment \(target): \(detail) (linked from \(seed))\n"), "\(crawl.stderr)")
    }

    @Test("inert text: each active character escaped where it stood, the rest kept")
    func inert() {
        #expect(TerminalText.inert(InertTextTests.hostile)
                == #"A\u001b[2J\u001b]0;owned\u0007\u001b[31mred\u009b1m\u202eB\u2066C"#)
        #expect(TerminalText.inert("line\nnext\ttab\u{7F}") == #"line\nnext\ttab\u007f"#)
        #expect(TerminalText.lines(["one \u{1B}x", "two"]) == "one \\u001bx\ntwo\n")
        #expect(TerminalText.inert("plain – ünïcode ✔ \u{200F}") == "plain – ünïcode ✔ \u{200F}")
    }
}
