import Foundation
@testable import NavWatchHTML
import Testing

/// The token reader (`HTMLTokenReader`) against the reading of Gumbo's tree,
/// on the same bytes: whenever it answers, its answer is the tree's; and the
/// documents whose tree is the nesting of their tags, generated, are read
/// from their tokens (so that the comparison cannot pass by never answering).
@Suite struct HTMLTokenReaderFuzzTests {
    @Test("the token reader answers as the tree does, under generated input")
    func tokens() {
        FuzzTarget(name: "html-tokens", dictionary: Self.dictionary, generators: [{ Self.nested(&$0).bytes }],
                   oracles: [Self.nestedIsRead], maximumSize: 24 << 10, boundedIterations: 1_500, check: Self.check).run()
    }

    static let base = URL(string: "http://127.0.0.1:8080/dir/page.html")!

    static let dictionary = HTMLParserFuzzTests.dictionary + [
        "<svg>", "</svg>", "<path d='M0 0'/>", "<g>", "</g>", "<title>", "</title>", "<table>", "<tbody>", "<tr>", "<td>",
        "</td>", "</tr>", "<th>", "<colgroup>", "<col>", "</colgroup>", "<thead>", "<li>", "</li>", "<dl>", "<dt>", "<dd>",
        "&copy", "&copy;", "&notit;", "&#x80;", "&#128", "&#xD800;", "&amp", "<pre>\n", "<textarea>\n", "<!---->", "<!-->",
        "<body id=x>", "<html id=y>", "<head id=z>", "<form>", "</form>", "<button>", "</button>", "<h1>", "</h2>", "\r\n",
        "\r", "<a href=x>", "<span>", "</span>", "<em>", "</em>", "<code>", "</code>", "</a>", "<br/>", "</br>", "</p>",
        "<hr>", "<img src=i alt=a>", "<input>", "<caption>", "<frameset>", "<main>", "</main>", "<nav>", "<section>",
        "</section>", "<label>", "</label>", "<![CDATA[x]]>", "<?xml?>", "--!>", "<script><!--", "</script >",
        "<style>", "</style>", "<xmp>", "<iframe src=f>", "<noembed>", "<noframes>", "<option>", "<optgroup>",
    ]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let tree = try onLargeStack { try? HTMLParser.parseTree(bytes, url: base) }
        guard let tree else { return false }
        guard let tokens = bytes.withUnsafeBufferPointer({ HTMLTokenReader.read($0, url: base) }) else { return false }
        try require(tokens == tree, "the tokens read \(tokens), the tree \(tree)")
        return true
    }

    /// A generated document of nested elements as written, which the token reader must read.
    @Sendable static func nestedIsRead(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let bytes = nested(&random).bytes
        return (bytes, { bytes in
            let read = bytes.withUnsafeBufferPointer { HTMLTokenReader.read($0, url: base) }
            try require(read != nil, "not read from its tokens: \(String(decoding: bytes, as: UTF8.self))")
        })
    }

    /// Elements that nest as written: blocks hold blocks and phrases,
    /// paragraphs and links hold phrases, lists their items, tables their
    /// rows and cells, an `<svg>` its shapes; each with its end tag, ids,
    /// references and raw text here and there.
    static func nested(_ random: inout FuzzRandom) -> (bytes: [UInt8], links: Int) {
        var html = random.oneIn(2) ? "<!DOCTYPE html>" : ""
        html += "<html lang=en><head><meta charset=utf-8><title>T &amp; \(random.below(9))</title>"
        if random.oneIn(2) { html += "<script>var a = 1 < 2 && '</p>';</script><style>p > a { }</style>" }
        html += "</head><body>"
        var links = 0
        func attributes(_ random: inout FuzzRandom) -> String {
            var text = ""
            if random.oneIn(2) { text += " id=\"i\(random.below(50))\"" }
            if random.oneIn(4) { text += " class='c \(random.below(5))'" }
            if random.oneIn(8) { text += " onclick=\"go()\"" }
            return text
        }
        func phrase(_ random: inout FuzzRandom, depth: Int, inLink: Bool) -> String {
            switch random.below(inLink || depth > 3 ? 5 : 7) {
            case 0: return random.pick(["text", "a &lt; b", "caf\u{E9}", "&copy; 2026", "x &#8212; y", " ", "\n"])
            case 1:
                let tag = random.pick(["b", "em", "code", "span", "strong", "i", "small"])
                return "<\(tag)\(attributes(&random))>\(phrase(&random, depth: depth + 1, inLink: inLink))</\(tag)>"
            case 2: return "<img src=\"i\(random.below(9)).png\" alt=\"\(random.pick(["", "an image", "A &amp; B"]))\">"
            case 3: return "<br>"
            case 4: return "<svg viewBox=\"0 0 2 2\"\(attributes(&random))><title>icon</title><path d=\"M0 0\"/><g><circle r=\"1\"></circle></g></svg>"
            case 5:
                links += 1
                let href = random.pick(["a.html", "../b.html#x", "/c?d=1&e=2", "#i3", "http://other.example/", "&#x41;.html"])
                return "<a href=\"\(href)\"\(attributes(&random))>\(phrase(&random, depth: depth + 1, inLink: true))</a>"
            default: return "<a name=\"n\(random.below(9))\"></a>"
            }
        }
        func block(_ random: inout FuzzRandom, depth: Int) -> String {
            switch random.below(depth > 3 ? 2 : 8) {
            case 0: return "<p\(attributes(&random))>\(phrase(&random, depth: depth, inLink: false))</p>"
            case 1: return "<h\(random.below(6) + 1)>\(phrase(&random, depth: depth, inLink: false))</h\(random.below(6) + 1)>"
            case 2:
                let tag = random.pick(["div", "section", "nav", "main", "blockquote"])
                return "<\(tag)\(attributes(&random))>" + (0..<random.below(4)).map { _ in block(&random, depth: depth + 1) }.joined()
                    + "</\(tag)>"
            case 3:
                let list = random.pick(["ul", "ol"])
                return "<\(list)>" + (0..<random.below(4)).map { _ in
                    "<li\(attributes(&random))>\(random.oneIn(2) ? block(&random, depth: depth + 1) : phrase(&random, depth: depth, inLink: false))"
                        + (random.oneIn(2) ? "</li>" : "")
                }.joined() + "</\(list)>"
            case 4:
                var table = "<table\(attributes(&random))>"
                if random.oneIn(3) { table += "<colgroup><col><col span=2></colgroup>" }
                if random.oneIn(2) { table += "<thead><tr><th>h</th></tr></thead>" }
                let body = random.oneIn(2)
                if body { table += "<tbody>" }
                for _ in 0..<random.below(3) {
                    table += "<tr>" + (0..<random.below(3)).map { _ in
                        "<td\(attributes(&random))>\(random.oneIn(2) ? block(&random, depth: depth + 1) : phrase(&random, depth: depth, inLink: false))</td>"
                    }.joined() + "</tr>\n"
                }
                return table + (body ? "</tbody>" : "") + "</table>"
            case 5: return "<pre>\n\(phrase(&random, depth: depth, inLink: false))</pre>"
            case 6: return "<dl><dt>term</dt><dd>\(phrase(&random, depth: depth, inLink: false))</dd></dl>"
            default: return "<!-- a comment --><form action=\"s\"><input name=q><button>Go</button></form>"
            }
        }
        for _ in 0..<random.below(8) { html += block(&random, depth: 0) + (random.oneIn(3) ? "\n" : "") }
        if random.oneIn(3) { html += "<template><p>not read <a href=t>t</a></p></template>" }
        if random.oneIn(3) { html += "<noscript><img src=\"n.png\"></noscript>" }
        html += random.oneIn(2) ? "</body></html>" : ""
        return (Array(html.utf8), links)
    }
}
