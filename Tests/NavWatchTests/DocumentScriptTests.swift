import Foundation
@testable import NavWatch
import Testing

/// What navwatch's document script posts, decoded.
@Suite("DocumentScript messages")
struct DocumentScriptTests {
    @Test("the load message carries the title; an empty one is kept as the page set it; the page's id, 0 when absent")
    func load() {
        #expect(DocumentScript.decode(#"{"event":"load","title":"Home","page":12}"#)?.message == .load(title: "Home"))
        #expect(DocumentScript.decode(#"{"event":"load","title":"Home","page":12}"#)?.page == 12)
        #expect(DocumentScript.decode(#"{"event":"load","title":""}"#)?.message == .load(title: ""))
        #expect(DocumentScript.decode(#"{"event":"load","title":""}"#)?.page == 0)
    }

    @Test("page errors: the engine's 0 and empty string are unknowns")
    func pageErrors() {
        #expect(DocumentScript.decode(#"""
            {"event":"page-error","kind":"uncaught-exception","message":"TypeError: x","url":"http://h/a","line":3,"column":9,"stack":"f@http://h/a:3:9"}
            """#)?.message == .pageError(kind: .uncaughtException, message: "TypeError: x", url: URL(string: "http://h/a"), line: 3,
                               column: 9, stack: "f@http://h/a:3:9"))
        #expect(DocumentScript.decode(#"""
            {"event":"page-error","kind":"unhandled-rejection","message":"42","url":"","line":0,"column":0,"stack":null}
            """#)?.message == .pageError(kind: .unhandledRejection, message: "42", url: nil, line: nil, column: nil, stack: nil))
    }

    @Test("anything else is not navwatch's: unknown events, unknown kinds, no JSON")
    func unknown() {
        #expect(DocumentScript.decode(#"{"event":"other"}"#) == nil)
        #expect(DocumentScript.decode(#"{"event":"page-error","kind":"warning","message":"m"}"#) == nil)
        #expect(DocumentScript.decode("hello") == nil)
        #expect(DocumentScript.decode(#"{"title":"no event"}"#) == nil)
    }

    @Test("a download's file name: the suggested name's last part, printable, never . or ..; else the URL's; else download")
    func downloadFileNames() {
        #expect(DownloadWait.fileName(suggested: "todos.csv", url: "http://h/x") == "todos.csv")
        #expect(DownloadWait.fileName(suggested: "../../etc/passwd", url: "http://h/x") == "passwd")
        #expect(DownloadWait.fileName(suggested: "a\\b.txt", url: "http://h/x") == "b.txt")
        #expect(DownloadWait.fileName(suggested: "bad\u{07}name\n.txt", url: "http://h/x") == "badname.txt")
        #expect(DownloadWait.fileName(suggested: "..", url: "http://h/report.pdf") == "report.pdf")
        #expect(DownloadWait.fileName(suggested: "", url: "http://h/") == "download")
    }
}
