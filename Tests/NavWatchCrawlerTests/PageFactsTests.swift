import Foundation
@testable import NavWatchCrawler
import NavWatchRx
import NavWatchTestSupport
import Testing

@Suite("PageFacts")
struct PageFactsTests {
    /// Found by NavWatchFuzzTests: the script cut link texts at 200 UTF-16
    /// units, which can split an emoji in two; `JSONDecoder` refuses the lone
    /// half, and the page lost all its facts (links, timings).
    @Test("a link text cut at 200 characters keeps whole emoji, so the facts decode")
    @WebKitActor func cutBeforeAnEmoji() async throws {
        let view = try WebView()
        defer { view.close() }
        let finished = EventLog(view.rx.didFinish)
        let long = String(repeating: "x", count: 199)
        try view.loadHTML("<title>Cut</title><a href='/one'>\(long)\u{1F600} and more</a><a href='/two'>Two</a>",
                          baseURL: URL(string: "http://127.0.0.1:9/")!)
        _ = try await finished.next()
        let facts = try #require(await PageFacts.read(from: view))
        #expect(facts.links.map(\.text) == [long, "Two"])
        #expect(facts.links.map(\.url) == ["http://127.0.0.1:9/one", "http://127.0.0.1:9/two"])
    }

    @Test("numbers beyond the stated bounds do not decode; transferBytes is at most largestSize")
    func bounds() throws {
        func facts(size: String, time: String = "1") -> String {
            #"{"links":[],"anchors":[],"ttfb":\#(time),"navigation":null,"resources":["#
                + (0..<2).map { _ in #"["r","img",1,1,0,0,0,0,0,1,1,1,\#(size),0,0]"# }.joined(separator: ",") + "]}"
        }
        let decoder = JSONDecoder()
        #expect(try decoder.decode(PageFacts.self, from: Data(facts(size: "1099511627776").utf8)).transferBytes == 1 << 40)
        #expect(try decoder.decode(PageFacts.self, from: Data(facts(size: "300").utf8)).transferBytes == 600)
        // A page that replaced JSON.stringify: Int(1e19) stopped the process.
        #expect(throws: DecodingError.self) { try decoder.decode(PageFacts.self, from: Data(facts(size: "1e19").utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(PageFacts.self, from: Data(facts(size: "-1").utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(PageFacts.self, from: Data(facts(size: "1", time: "1e300").utf8)) }
    }

    /// On loopback the document's first byte can come within the 1 ms grain
    /// of the page's clock: a `responseStart` of 0 with a `responseEnd` is a
    /// time, and was dropped (a sixth of the Python documentation's pages
    /// had no time to first byte).
    @Test("a first byte at 0 ms still gives first_byte_to_last_resource; none without the document's end")
    func firstByteAtZero() throws {
        func metrics(responseEnd: Int) throws -> PageMetrics {
            let json = #"{"links":[],"anchors":[],"ttfb":0,"navigation":["d","navigation",0,0,0,0,0,0,0,0,0,"#
                + #"\#(responseEnd),100,100,100],"resources":[["r","img",1,1,0,0,0,0,0,1,2,5,10,10,10]]}"#
            return PageMetrics(try JSONDecoder().decode(PageFacts.self, from: Data(json.utf8)))
        }
        #expect(try metrics(responseEnd: 1).firstByteToLastResource == 5)
        #expect(try metrics(responseEnd: 0).firstByteToLastResource == nil)
    }
}
