import Foundation
import NavWatchHTML
import Testing

/// The HTML parser of the static link checks (`HTMLParser`), on strangers'
/// bytes: it never crashes, it answers within a time that grows with the
/// input's size (at most `allowance(for:)`), what it reads is well formed
/// (resolved URLs, bounded texts, each anchor once), and a generated
/// document gives exactly the links and ids it was made with.
@Suite struct HTMLParserFuzzTests {
    @Test("the HTML parser under generated input")
    func html() {
        FuzzTarget(name: "html", dictionary: Self.dictionary, generators: [Self.nested, Self.encoded],
                   oracles: [Self.wellFormed, Self.wellFormedInUTF16],
                   maximumSize: 24 << 10, check: Self.check).run()
    }

    static let base = URL(string: "http://127.0.0.1:8080/dir/page.html")!

    static let dictionary = [
        "<a href=", "<a href=\"", "</a>", "<area href=x>", "<iframe src=", "</iframe>", "<frame src=f>", "<base href=",
        "<div>", "</div>", "<table>", "<tr>", "<td>", "</table>", "<p>", "<li>", "<ul>", "<b>", "</b>", "<i>", "<select>",
        "<option>", "<template>", "</template>", "<noscript>", "</noscript>", "<svg>", "<math>", "<script>", "</script>",
        "<style>", "<textarea>", "<title>", "</title>", "<!--", "-->", "<!doctype html>", "<plaintext>", "<xmp>",
        " id=", " name=", " rel=", " onload=", "<meta http-equiv=refresh content=", "<meta charset=", "<img alt=",
        "&amp;", "&#x0;", "&", "\"", "'", "=", ">", "<", "/", "\\", "#", "?", "\u{0}", "\t", "\n", "\u{FEFF}",
        "\u{1F600}", "\u{E9}", "javascript:", "http:", "//",
    ]

    /// What a parse of `bytes` may take: 100 ms and 50 µs a byte, some fifty
    /// times what a debug build takes on the deepest inputs allowed (Gumbo
    /// alone reads 10 KB of them in 3 ms), so that a busy machine never trips
    /// it, while a parse whose time grows with the square of the size (as
    /// Gumbo's does with the nesting depth, or a scan that rereads its input)
    /// takes seconds at this size.
    static func allowance(for bytes: Int) -> Duration {
        .milliseconds(100) + .microseconds(50 * bytes)
    }

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let clock = ContinuousClock(), started = clock.now
        let outcome = try onLargeStack { Result { () throws(HTMLParseError) in try HTMLParser.parseNow(bytes, url: base) } }
        let took = clock.now - started
        try require(took < allowance(for: bytes.count), "\(bytes.count) bytes took \(took)")
        guard case .success(let document) = outcome else { return false }
        try require(Set(document.anchors).count == document.anchors.count, "an anchor twice: \(document.anchors)")
        try require(document.links.count <= bytes.count { $0 == UInt8(ascii: "<") }, "more links than tags")
        for link in document.links {
            try require(link.text.utf16.count <= 200, "a text of \(link.text.utf16.count) code units")
            try require(!(link.text.utf16.last.map(UTF16.isLeadSurrogate) ?? false), "a text ending in half a pair")
            // Trimmed, then cut: a text cut at 200 may end in a space, as the facts script's does.
            try require(!(link.text.unicodeScalars.first.map(isJavaScriptSpace) ?? false)
                        && (link.text.utf16.count >= 199 || !(link.text.unicodeScalars.last.map(isJavaScriptSpace) ?? false)),
                        "untrimmed text \(link.text)")
            try require(["a", "area", "iframe", "frame"].contains(link.element), "element \(link.element)")
            try require(link.url == link.href || URL(string: link.url)?.scheme != nil,
                        "\(link.href) resolved to \(link.url), which has no scheme")
        }
        return true
    }

    /// Deep and wide nesting of the elements Gumbo works hardest on.
    @Sendable static func nested(_ random: inout FuzzRandom) -> [UInt8] {
        let openings = ["<div>", "<table><tr><td>", "<ul><li>", "<b>", "<a href=x>", "<p>", "<select><option>", "<svg><g>",
                        "<template>", "<font>", "<table>"]
        var html = ""
        for _ in 0..<random.below(12) {
            html += String(repeating: random.pick(openings), count: random.below(1_200))
            if random.oneIn(2) { html += String(repeating: random.pick(["</div>", "</b>", "</table>", "</a>", "</p>"]), count: random.below(300)) }
        }
        return Array(html.utf8)
    }

    /// Bytes in another encoding: a byte-order mark before random bytes, or
    /// a `<meta charset>` naming an encoding (or none navwatch reads) before them.
    @Sendable static func encoded(_ random: inout FuzzRandom) -> [UInt8] {
        let body = (0..<random.below(4_000)).map { _ in UInt8(truncatingIfNeeded: random.below(256)) }
        switch random.below(3) {
        case 0: return random.pick([[0xFF, 0xFE], [0xFE, 0xFF], [0xEF, 0xBB, 0xBF]]) + body
        default:
            let label = random.pick(["shift_jis", "utf-16", "utf-16be", "windows-1252", "gb18030", "big5", "euc-jp",
                                     "iso-2022-jp", "euc-kr", "koi8-r", "x-user-defined", "klingon", "utf-8", "latin1"])
            return Array("<meta charset=\(label)><title>".utf8) + body
        }
    }

    /// `wellFormed`'s document in UTF-16 (either order, with its byte-order mark): the same links and ids.
    @Sendable static func wellFormedInUTF16(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let (utf8, expect) = wellFormed(&random)
        let bigEndian = random.oneIn(2)
        let units = String(decoding: utf8, as: UTF8.self).utf16
        let mark: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        let bytes: [UInt8] = mark + units.flatMap { (unit: UInt16) -> [UInt8] in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return (bytes, expect)
    }

    /// A document of plain elements around known links and ids: the parse must give exactly those, in order.
    @Sendable static func wellFormed(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        var html = "<!doctype html><title>t</title>"
        var hrefs: [String] = [], ids: [String] = []
        for index in 0..<random.below(30) {
            let wrapper = random.pick(["div", "p", "span", "section", "li"])
            let id = "id-\(index)-\(random.below(1000))"
            let href = random.pick(["a.html", "../b", "/c?d=e", "#f", "http://other.example/g", "h%20i", "caf\u{E9}"]) + "\(index)"
            html += "<\(wrapper) id=\"\(id)\"><a href=\"\(href)\">link \(index)</a></\(wrapper)>"
            hrefs.append(href)
            ids.append(id)
        }
        return (Array(html.utf8), { [hrefs, ids] bytes in
            let document = try onLargeStack { try HTMLParser.parseNow(bytes, url: base) }
            try require(document.links.map(\.href) == hrefs, "links \(document.links.map(\.href)), made with \(hrefs)")
            try require(document.links.map(\.text) == hrefs.indices.map { "link \($0)" }, "texts \(document.links.map(\.text))")
            try require(document.anchors == ids, "anchors \(document.anchors), made with \(ids)")
            try require(document.title == "t", "title \(document.title ?? "none")")
        })
    }
}

/// JavaScript's `\s`, which the facts script trims link texts of.
private func isJavaScriptSpace(_ scalar: Unicode.Scalar) -> Bool {
    [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF].contains(scalar.value)
        || (0x2000...0x200A).contains(scalar.value)
}

/// Runs `body` on a thread with the stack the parser's thread has (Gumbo
/// recurses over deep trees) and waits for it.
func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let result = LargeStackResult<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.value = Result { try body() }
        done.signal()
    }
    thread.stackSize = 16 << 20
    thread.start()
    done.wait()
    return try result.value!.get()
}

/// Where the thread leaves its result; written once before the semaphore is signalled, read after.
private final class LargeStackResult<T: Sendable>: @unchecked Sendable {
    var value: Result<T, any Error>?
}
