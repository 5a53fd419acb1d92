import Foundation
import LoopbackServer
import NavWatch
@testable import NavWatchCrawler
import NavWatchTestSupport
import Testing
import WebKitThread

/// A page to match text directives against: blocks, inline elements,
/// hidden and skipped content, white space, words with apostrophes and numbers.
private let matchPage = """
    <!doctype html><title>Match</title><body>
    <p>The quick brown fox jumped over the lazy dog.
       a a b b b c</p>
    <p>foo foo foo bar bar bar</p>
    <p>Lorem <br> <i> </i> <span style="display: none">not rendered</span> <img alt="picture">
       &nbsp; Ipsum</p>
    <div>Text <div style="visibility: hidden">invisible</div> with hidden block</div>
    <div>Text <span style="visibility: hidden">invisible</span> with hidden inline</div>
    <div>Text <span style="display: none">gone</span> with display none</div>
    <p>She caught it in one hand and a net.</p>
    <p>z<i>z</i>z</p>
    <p>he's falling.</p>
    <p>3.5</p>
    <div><p>II</p><p>the cat</p></div>
    <p>first second</p><p>third fourth</p>
    <script>document.body.append(Object.assign(document.createElement('p'), {textContent: 'Written by a script'}));</script>
    </body>
    """

/// Each directive (the value after `text=`, as in a URL) and whether it matches `matchPage`.
private let matchCases: [(String, Bool)] = [
    ("jumped", true),                                  // a whole word
    ("JUMPED%20OVER", true),                           // case and escapes
    ("umped", false),                                  // the start begins at a word boundary
    ("jum", false),                                    // ... and ends at one without a suffix
    ("jum,-ped", true),                                // a suffix lets it end inside a word
    ("u-,mped", false),                                // the prefix begins at a word boundary
    ("ju-,mped", true),                                // ... but need not end at one
    ("brown-,jumped", false),                          // the match follows the prefix at once
    ("foo-,bar", true),                                // ... after some occurrence of the prefix
    ("foo%20foo-,bar", true),                          // overlapping prefixes
    ("quick%20brown-,brown%20fox", false),             // the prefix does not overlap the match
    ("fox-,jum,over", false),                          // an end makes the start end at a word boundary
    ("fox-,jum,-ped", true),
    ("brown,fox", true),                               // a range
    ("brown,quick", false),                            // an end before the start
    ("quick,bro", false),                              // the end ends at a word boundary without a suffix
    ("quick,bro,-wn", true),
    ("quick,ro,-wn", false),                           // the end begins at a word boundary
    ("quick,jumped,-fox", false),                      // the suffix follows the end at once
    ("The-,quick,fox,-brown", false),                  // the suffix comes after the end
    ("b%20b,-c", true),                                // overlapping matches with a suffix
    ("quick,-fox", false),                             // content between the match and the suffix
    ("qu,-ick", true),                                 // a suffix need not begin at a word boundary
    ("quick,-bro", false),                             // ... but ends at one
    ("Lorem-,Ipsum", true),                            // skipped content and white space between prefix and match
    ("Text%20with%20hidden%20block", false),           // a hidden block is still a boundary
    ("Text%20with%20hidden%20inline", true),           // hidden inline text is skipped
    ("Text%20with%20display%20none", true),            // so is text that is not rendered
    ("not%20rendered", false),
    ("caught,and%20a", true),                          // an end after a rejected overlapping candidate
    ("z", false),                                      // an inline boundary is no word boundary
    ("he's", true),                                    // an apostrophe inside a word
    ("he", false),
    ("5", false),                                      // a number is one word
    ("i-,the%20cat", false),                           // the prefix's word boundary at the start of a node
    ("second%20third", false),                         // a term never spans a block boundary
    ("second-,third", true),                           // the gap between prefix and match may
    ("first,fourth", true),                            // and so may a range
    ("written%20by%20a%20script", true),               // text a script added
]

@Suite("Text fragments matched against rendered pages")
struct TextFragmentTests {
    @Test("text directives: prefix, start, end and suffix, escaped commas and dashes, and what is not valid")
    func parsing() {
        #expect(TextDirective(value: "word") == TextDirective(start: "word"))
        #expect(TextDirective(value: "pre-,start,end,-suf") == TextDirective(prefix: "pre", start: "start", end: "end", suffix: "suf"))
        #expect(TextDirective(value: "start,-suf") == TextDirective(start: "start", suffix: "suf"))
        #expect(TextDirective(value: "pre-,start") == TextDirective(prefix: "pre", start: "start"))
        #expect(TextDirective(value: "Hello%2C%20world") == TextDirective(start: "Hello, world"))
        #expect(TextDirective(value: "e%2Dmail,-%2Dsuffix") == TextDirective(start: "e-mail", suffix: "-suffix"))
        #expect(TextDirective(value: "a%2D-,b") == TextDirective(prefix: "a-", start: "b"))
        #expect(TextDirective(value: "e-mail") == TextDirective(start: "e-mail"))
        for invalid in ["", ",", "a,", ",b", "a,b,c", "p-,a,b,c,-s", "a,b,c,d,e", "%FF", "a b", "a#b", "foo-", "-foo", "a-,-b", "-"] {
            #expect(TextDirective(value: invalid) == nil, "\(invalid)")
        }
        #expect(TextDirective.split(fragment: "usage") == nil)
        #expect(TextDirective.split(fragment: ":~:text=a&text=b,-c")! == (nil, ["a", "b,-c"]))
        #expect(TextDirective.split(fragment: "usage:~:text=a&other=1")! == ("usage", ["a"]))
        #expect(TextDirective(value: "p-,a,b,-s")?.description == #""p-", "a", "b", "-s""#)
    }

    @Test("the match follows the specification's rules on a rendered page", .timeLimit(.minutes(1)))
    @WebKitActor
    func matching() async throws {
        let server = try await LoopbackServer.start(route: { _ in .html(matchPage) })
        let view = try WebView()
        defer { view.close() }
        let fold = try view.loadFolding(server.url("/"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished, "\(String(describing: fold.state.outcome))")
        let directives = matchCases.map { TextDirective(value: $0.0)! }
        let started = ContinuousClock.now
        let found = try #require(await TextFragmentMatch.find(directives, in: view), "no answer after \(ContinuousClock.now - started)")
        let wrong = zip(matchCases, found).filter { $0.0.1 != $0.1 }.map { "\($0.0.0): \($0.1)" }
        #expect(wrong == [])
        await server.shutdown()
    }

    @Test("a crawl reports the text fragments its pages lack, after one more load of each page they point at")
    func crawl() async throws {
        let server = try await LoopbackServer.start(route: { request in
            switch request.path {
            case "/":
                let links = [
                    ("#:~:text=Installing%20the%20package", "present"),
                    ("#:~:text=written%20by%20a%20script", "scripted"),
                    ("#:~:text=no%20such%20words", "absent"),
                    ("#:~:text=Step-,one", "prefix"),
                    ("#:~:text=Stage-,one", "wrong prefix"),
                    ("#:~:text=one,-two", "suffix"),
                    ("#:~:text=one,-three", "wrong suffix"),
                    ("#:~:text=Hello%2C%20world", "comma"),
                    ("#:~:text=e%2Dmail", "dash"),
                    ("#:~:text=Installing&text=nowhere", "two directives"),
                    ("#usage:~:text=Installing", "element and text"),
                    ("#nope:~:text=Installing", "missing element"),
                    ("#:~:text=", "empty"),
                    ("#:~:text=hidden%20words", "hidden"),
                ]
                return .html("<title>Home</title>" + links.map { "<a href=\"/doc\($0.0)\">\($0.1)</a>" }.joined())
            case "/doc":
                return .html("""
                    <title>Doc</title><h1 id="usage">Usage</h1><p>Installing the package takes a minute.</p>
                    <p>Step one two</p><p>Hello, world. Send an e-mail.</p><div style="display: none">hidden words</div>
                    <script>document.body.append(Object.assign(document.createElement('p'), {textContent: 'Written by a script'}));</script>
                    """)
            default:
                return .html("<title>Missing</title>", status: 404)
            }
        })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("text-\(UUID().uuidString).db").path
        defer { removeSQLiteDatabase(atPath: path) }
        let store = try SQLiteCrawlStore(path: path)
        let crawler = try Crawler(configuration: CrawlConfiguration(seeds: [server.url("/")]), store: store)
        _ = try await withDeadline("the crawl to end", within: .seconds(120)) { try await crawler.run { _ in } }
        let result = LinkCheckResult(graph: try await store.linkGraph(), reports: try await store.allReports())
        let base = server.baseURL.absoluteString
        let rows = result.broken.map { target in
            "\(target.target.replacingOccurrences(of: base, with: "")) \(target.problem!.rawValue) \(target.detail) "
                + target.referrers.map { "\"\($0.text)\"" }.joined(separator: ", ")
        }
        #expect(rows == [
            #"/doc#:~:text= missing-text-fragment "text=" is not a valid text directive "empty""#,
            #"/doc#:~:text=Installing&text=nowhere missing-text-fragment no text matching "nowhere" on the rendered page "two directives""#,
            #"/doc#:~:text=Stage-,one missing-text-fragment no text matching "Stage-", "one" on the rendered page "wrong prefix""#,
            #"/doc#:~:text=hidden%20words missing-text-fragment no text matching "hidden words" on the rendered page "hidden""#,
            #"/doc#:~:text=no%20such%20words missing-text-fragment no text matching "no such words" on the rendered page "absent""#,
            #"/doc#:~:text=one,-three missing-text-fragment no text matching "one", "-three" on the rendered page "wrong suffix""#,
            #"/doc#nope:~:text=Installing missing-fragment no element with id or name "nope" "missing element""#,
        ])
        #expect(result.missingTextFragments.count == 6)
        // The crawl's load of /doc, and the pass's.
        #expect(server.receivedRequests.filter { $0 == "/doc" }.count == 2)
        // A second run finds every directive matched: nothing more to load.
        _ = try await withDeadline("the second run to end", within: .seconds(60)) {
            try await Crawler(configuration: CrawlConfiguration(seeds: [server.url("/")]), store: store).run { _ in }
        }
        #expect(server.receivedRequests.filter { $0 == "/doc" }.count == 2)
        await store.close()
        await server.shutdown()
    }
}
