import Foundation
@testable import NavWatchCrawler
import Testing

/// The decoding of the JSON the page's facts script returns. A page can
/// replace what the script calls (`JSON.stringify`, `performance`), so the
/// text is the page's to choose: decoding throws a `DecodingError` or gives
/// facts whose numbers are within the bounds `PageFacts` states; and what the
/// script itself writes always decodes, link texts of 200 characters at most.
@Suite struct PageFactsFuzzTests {
    @Test("page facts decoding under generated input")
    func pageFacts() {
        FuzzTarget(name: "page-facts", dictionary: Self.dictionary, generators: [{ Self.scriptOutput(&$0).bytes }],
                   oracles: [Self.scriptOutput], maximumSize: 64 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "0", "-0", "1e308", "-1e308", "1e309", "1.7976931348623157e308",
        "9007199254740993", "9223372036854775808", "5e-324", "1e-400", "NaN", "Infinity", "\\u0000", "\\ud83d", "\\ude00",
        "\\ud83d\\ude00", "\\\"", "\"links\"", "\"anchors\"", "\"ttfb\"", "\"load\"", "\"navigation\"", "\"resources\"",
        "\"domSize\"", "\"lcpSupported\"", "\"lcp\"", "[1.5,100,\"img#hero\",\"https://example.com/a.png\"]",
        "[\"https://example.com/\",\"\",\"\",\"\",\"a\"]", "[\"u\",\"script\",1,2,3,4,5,6,0,7,8,9,300,200,100]",
        "\u{1F600}", "\u{E9}", "\"embeds\"", "\"base\"", "[\"img\",\"srcset\",\"a.png 1x, b,c.png (1, 2) 2x,,\",\"alt\"]",
        "[\"link\",\"href\",\"s.css\",\"stylesheet\"]", "[\"script\",\"src\",\"x.js\",\"module\"]", "\"https://example.com/d/\"",
    ]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let facts: PageFacts
        do {
            facts = try JSONDecoder().decode(PageFacts.self, from: Data(bytes))
        } catch is DecodingError {
            return false
        } catch {
            throw PropertyFailure(description: "decoding threw \(type(of: error)): \(error), not a DecodingError")
        }
        let times = [facts.ttfb, facts.domContentLoaded, facts.load, facts.redirect, facts.firstContentfulPaint].compactMap { $0 }
            + (facts.resources + [facts.navigation].compactMap { $0 }).flatMap {
                [$0.startTime, $0.fetchStart, $0.domainLookupStart, $0.domainLookupEnd, $0.connectStart, $0.connectEnd,
                 $0.secureConnectionStart, $0.requestStart, $0.responseStart, $0.responseEnd]
            }
        for time in times {
            try require(time.isFinite && abs(time) <= PageFacts.largestTime, "the time \(time) is out of bounds")
            try require(time.tenths.isFinite, "the time \(time) has no tenths")
        }
        let sizes = (facts.resources + [facts.navigation].compactMap { $0 }).flatMap {
            [$0.transferSize, $0.encodedBodySize, $0.decodedBodySize]
        }
        for size in sizes {
            try require((0...PageFacts.largestSize).contains(size), "the size \(size) is out of bounds")
        }
        if let lcp = facts.largestContentfulPaint {
            try require(lcp.time.isFinite && abs(lcp.time) <= PageFacts.largestTime, "the LCP time \(lcp.time) is out of bounds")
            try require((0...PageFacts.largestSize).contains(lcp.size), "the LCP size \(lcp.size) is out of bounds")
        }
        try require((facts.domSize ?? 0) >= 0, "the DOM size \(facts.domSize ?? 0) is negative")
        for resource in facts.embedded {
            try require(["img", "source", "video", "audio", "link", "script"].contains(resource.element), "the element \(resource.element)")
            try require(resource.value.contains { !$0.isWhitespace }, "a resource of no URL: \(resource)")
            try require(resource.text.count <= 200, "a resource text of more than 200 characters")
        }
        let metrics = PageMetrics(facts)  // sums and conversions that must not trap
        try require(metrics.firstByteToLastResource.map { $0 >= 0 && $0.isFinite } ?? true, "a negative span")
        let total = sizes.isEmpty ? 0 : (facts.resources + [facts.navigation].compactMap { $0 }).map(\.transferSize).reduce(0, +)
        try require(facts.transferBytes == Int(min(total, PageFacts.largestSize)), "transferBytes is \(facts.transferBytes), not \(total)")
        return true
    }

    /// What the script writes for a page: links whose text is cut to 200
    /// characters, ids, timings; strings escaped as `JSON.stringify` does.
    @Sendable static func scriptOutput(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        var texts: [String] = []
        var links: [String] = []
        for _ in 0..<random.below(5) {
            let pieces = (0..<random.below(220)).map { _ in
                random.pick(["a", "b", " ", "\u{E9}", "e\u{301}", "\u{1F600}", "\u{1F44D}\u{1F3FD}", "\u{4E2D}", "\"", "\\", "\n", "\u{7}"])
            }
            let units = Array(Self.collapsed(pieces.joined()).utf16)
            var text = Array(units.prefix(200))   // the script's `.slice(0, 200)`
            if let last = text.last, UTF16.isLeadSurrogate(last) { text.removeLast() }   // and `.replace(/[\uD800-\uDBFF]$/, '')`
            texts.append(String(decoding: text, as: UTF16.self))
            let element = random.pick(["a", "area", "iframe", "frame"])
            links.append("[\"https://example.com/\(links.count)\",\"/\(links.count)\",\(json(text)),\"\",\"\(element)\"]")
        }
        // Resources as the script lists them, with the URLs they resolve to against the base.
        var embeds: [String] = [], embedded: [String] = []
        for index in 0..<random.below(4) {
            let candidates = (0..<(1 + random.below(3))).map { "r\(index)-\($0).png" }
            let descriptors = candidates.map { $0 + random.pick(["", " 1x", " 2x", " 100w", " (a, b) 3x"]) }
            embeds.append("[\"img\",\"srcset\",\(json(Array(descriptors.joined(separator: random.pick([",\t", ", ", " ,\n"])).utf16))),\"\"]")
            embedded += candidates.map { "https://example.com/d/" + $0 }
        }
        func time() -> String { number(Double(random.below(100_000_000)) / 1000) }
        func timing(_ name: String) -> String {
            "[\(json(Array(name.utf16))),\"\(random.pick(["", "img", "script", "navigation"]))\","
                + (0..<10).map { _ in random.oneIn(5) ? "0" : time() }.joined(separator: ",") + ","
                + (0..<3).map { _ in number(Double(random.below(10_000_000))) }.joined(separator: ",") + "]"
        }
        let optional = { (random: inout FuzzRandom) in random.oneIn(4) ? "null" : number(Double(random.below(100_000_000)) / 1000) }
        let text = "{\"links\":[\(links.joined(separator: ","))],\"anchors\":[\"top\",\"caf\u{E9}\"],"
            + "\"ttfb\":\(optional(&random)),\"domContentLoaded\":\(optional(&random)),\"load\":\(optional(&random)),"
            + "\"redirect\":\(optional(&random)),\"firstContentfulPaint\":\(optional(&random)),"
            + "\"navigation\":\(random.oneIn(4) ? "null" : timing("https://example.com/")),"
            + "\"resources\":[\((0..<random.below(4)).map { timing("https://example.com/r\($0).png") }.joined(separator: ","))],"
            + "\"domSize\":\(random.below(100_000)),\"lcpSupported\":\(random.oneIn(2)),"
            + "\"lcp\":\(random.oneIn(2) ? "null" : "[\(time()),\(random.below(1_000_000)),\"img#hero\",\"\"]"),"
            + "\"base\":\"https://example.com/d/\",\"embeds\":[\(embeds.joined(separator: ","))]}"
        return (Array(text.utf8), { [texts, embedded] bytes in
            let facts: PageFacts
            do { facts = try JSONDecoder().decode(PageFacts.self, from: Data(bytes)) } catch {
                throw PropertyFailure(description: "what the script writes does not decode: \(error)")
            }
            try require(facts.links.map(\.text) == texts, "the link texts are \(facts.links.map(\.text)), not \(texts)")
            try require(facts.links.allSatisfy { $0.text.count <= 200 }, "a link text of more than 200 characters")
            try require(facts.embedded.map(\.url) == embedded, "the resources are \(facts.embedded.map(\.url)), not \(embedded)")
        })
    }

    /// The script's `replace(/\s+/g, ' ').trim()`, for the white space generated here.
    private static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// A JavaScript string as `JSON.stringify` writes it: `"` and `\` escaped,
    /// controls as `\uXXXX` (or `\n` and the like), lone surrogates as `\uXXXX`.
    static func json(_ units: [UInt16]) -> String {
        var text = "\""
        var index = 0
        while index < units.count {
            let unit = units[index]
            let pair = UTF16.isLeadSurrogate(unit) && index + 1 < units.count && UTF16.isTrailSurrogate(units[index + 1])
            switch unit {
            case 0x22: text += "\\\""
            case 0x5C: text += "\\\\"
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x09: text += "\\t"
            case 0x08: text += "\\b"
            case 0x0C: text += "\\f"
            case 0..<0x20: text += String(format: "\\u%04x", unit)
            case 0xD800...0xDFFF where !pair: text += String(format: "\\u%04x", unit)
            case 0xD800...0xDBFF:
                text += String(decoding: units[index...index + 1], as: UTF16.self)
                index += 1
            default: text += String(decoding: [unit], as: UTF16.self)
            }
            index += 1
        }
        return text + "\""
    }

    /// A number as JavaScript writes it.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e21 ? String(Int64(value)) : "\(value)"
    }
}
