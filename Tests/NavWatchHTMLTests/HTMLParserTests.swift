import Foundation
@testable import NavWatchHTML
import Testing

/// The parser reads what the facts script reads, by its rules (the crawl
/// tests compare both paths on a live site; these pin each rule).
@Suite struct HTMLParserTests {
    let page = URL(string: "http://127.0.0.1:8080/docs/guide/page.html?v=1#top")!

    func parse(_ html: String, url: URL? = nil) throws -> HTMLDocument {
        try HTMLParser.parseNow(Array(html.utf8), url: url ?? page)
    }

    @Test("links: a and area in document order, then iframes and frames; none in a template or noscript")
    func linkOrder() throws {
        let document = try parse("""
            <iframe src="frame.html">fallback</iframe><a href="a.html">A</a><map><area href="area.html" alt="Area"></map>
            <a name="no-href">not a link</a><template><a href="t.html">T</a></template>
            <noscript><a href="n.html">N</a></noscript><svg><a href="svg.html">S</a></svg><a href="b.html">B</a>
            """)
        #expect(document.links.map(\.element) == ["a", "area", "a", "iframe"])
        #expect(document.links.map(\.href) == ["a.html", "area.html", "b.html", "frame.html"])
        #expect(document.links.map(\.url) == ["a.html", "area.html", "b.html", "frame.html"]
            .map { "http://127.0.0.1:8080/docs/guide/" + $0 })
    }

    @Test("URLs resolve as a browser resolves them", arguments: [
        ("", "http://127.0.0.1:8080/docs/guide/page.html?v=1"),
        ("#part", "http://127.0.0.1:8080/docs/guide/page.html?v=1#part"),
        ("?q=2", "http://127.0.0.1:8080/docs/guide/page.html?q=2"),
        ("../index.html", "http://127.0.0.1:8080/docs/index.html"),
        ("/", "http://127.0.0.1:8080/"),
        ("//example.org/x", "http://example.org/x"),
        ("  other.html\n", "http://127.0.0.1:8080/docs/guide/other.html"),
        ("ot\ther\n.html", "http://127.0.0.1:8080/docs/guide/other.html"),
        ("..\\up\\file.html?a\\b", "http://127.0.0.1:8080/docs/up/file.html?a%5Cb"),
        ("http:same-scheme.html", "http://127.0.0.1:8080/docs/guide/same-scheme.html"),
        ("https://example.org/a b", "https://example.org/a%20b"),
        ("caf\u{E9}.html", "http://127.0.0.1:8080/docs/guide/caf%C3%A9.html"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
    ])
    func resolution(_ href: String, _ expected: String) throws {
        let document = try parse("<a href=\"\(href)\">x</a>")
        #expect(document.links.first?.url == expected)
    }

    @Test("the direct resolution of plain references gives what Foundation gives", arguments: [
        "http://127.0.0.1:8080/docs/guide/page.html?v=1#top", "http://127.0.0.1:8080", "https://example.org/a/b/",
        "http://example.org:81/x?y", "http://example.org/a/b/c/d.html",
    ])
    func directResolution(base: String) throws {
        let resolver = DocumentURL.Resolver(base: URL(string: base)!)
        let references = ["a.html", "./a.html", "../a.html", "../../../../a.html", "/abs", "/a/./b/../c", "?q=1", "#f",
                          "a.html?x=1&y=2#frag", "b/", "..", ".", "./", "../", "a/..", "a/.", "sub/./x/../y.html?q#h",
                          "x:y", "mailto:a@b", "https://other.example/p?q#f", "http:same.html", "~user/p", "a;b=c/d",
                          "a@b", "(x)", "*", "$", "+plus", "'quote'", ":colon-later", "p/a:b", "?", "#", "?#", "a.html#",
                          "a#b#c", "a?b?c", "https://www.python.org", "https://www.python.org/", "http://h:99999/",
                          "http://h:abc/", "http://h/p#a#b", "http://@h/", "http://:80/", "http:///p", "http://",
                          "http://h/./a/../b?q?r#f", "https://u@h/p", "HTTPS://Www.Example/A/../b", "http://h.:1/x",
                          "http://h:8080", "http://h_~x-y.z/(x)!$'*+,;=:@", "https://h/p?#", "http://h:1:2/"]
        for reference in references {
            #expect(resolver.resolve(reference) == DocumentURL.slowResolve(reference, against: URL(string: base)!),
                    "\(reference) against \(base)")
        }
    }

    @Test("the first <base href> is the base of every link, those before it included")
    func base() throws {
        let document = try parse("""
            <a href="early.html">e</a><base href="/root/"><base href="/ignored/"><a href="late.html">l</a>
            """)
        #expect(document.baseURL.absoluteString == "http://127.0.0.1:8080/root/")
        #expect(document.links.map(\.url) == ["http://127.0.0.1:8080/root/early.html", "http://127.0.0.1:8080/root/late.html"])
    }

    @Test("white space in link text collapses to one space and is trimmed, in ASCII text and other")
    func collapsedText() {
        let cases: [(String, String)] = [
            ("", ""), (" ", ""), ("a", "a"), ("a b", "a b"), (" a", "a"), ("a ", "a"), ("a  b", "a b"), ("a\tb", "a b"),
            ("\n a \r\n b \u{0B}", "a b"), ("a\u{0C}b", "a b"), ("x\u{1F}y", "x\u{1F}y"), ("é\u{A0} b", "é b"),
            ("\u{2003}a\u{3000}", "a"),
        ]
        for (text, collapsed) in cases { #expect(LinkText.collapsed(text) == collapsed, "\(text.debugDescription)") }
        #expect(LinkText.nonSpaceLength("a b\tc") == 3)
        #expect(LinkText.nonSpaceLength("é\u{A0}b") == 2)
        #expect(LinkText.nonSpaceLength("𝄞 x") == 3)  // a surrogate pair and one unit
    }

    @Test("link text: text content with white space collapsed, else an image's alt, an aria-label, a title")
    func text() throws {
        let document = try parse("""
            <a href="1">  two\u{A0}\n words <b>bold</b><script>var s = 1</script></a>
            <a href="2"><img alt=""><img alt="second"></a>
            <a href="3"><img alt="Logo"></a>
            <a href="4" aria-label="Label" title="Title"> </a>
            <a href="5" aria-label="" title="Title"></a>
            <a href="6"></a>
            """)
        #expect(document.links.map(\.text) == ["two words boldvar s = 1", "", "Logo", "Label", "Title", ""])
    }

    @Test("link text is cut at 200 UTF-16 code units, never inside a surrogate pair")
    func longText() throws {
        let emojiAtCut = String(repeating: "a", count: 199) + "\u{1F600}" + "tail"
        let document = try parse("<a href=x>\(String(repeating: "b", count: 300))</a><a href=y>\(emojiAtCut)</a>")
        #expect(document.links[0].text == String(repeating: "b", count: 200))
        #expect(document.links[1].text == String(repeating: "a", count: 199))
    }

    @Test("anchors: every id in document order, then every a name, each once; rel and the title")
    func anchorsAndTitle() throws {
        let document = try parse("""
            <head><title>
              A   title\twith  space </title><title>second</title></head>
            <body><h1 id="top">x</h1><a name="old">o</a><a name="top"></a><svg id="drawing"></svg>
            <template id="tpl"><p id="inside"></p></template><a href="n" rel="next nofollow">n</a></body>
            """)
        #expect(document.anchors == ["top", "drawing", "tpl", "old"])
        #expect(document.title == "A title with space")
        #expect(document.links.first?.rel == "next nofollow")
        #expect(try parse("<p>no title</p>").title == nil)
    }

    @Test("scripts: sources resolved and sorted, inline text, handlers; data blocks do not run")
    func scripts() throws {
        let document = try parse("""
            <script src="/b.js"></script><script src="../a.js" type="module"></script><script src="/b.js"></script>
            <script>console.log(1)</script><script type="application/ld+json">{"a": 1}</script>
            <script type="text/template"><a href="x"></a></script>
            """)
        #expect(document.scripts.sources == ["http://127.0.0.1:8080/b.js", "http://127.0.0.1:8080/docs/a.js"])
        #expect(document.scripts.inline == ["console.log(0)".hashValue])
        #expect(!document.scripts.handlers)
        #expect(try parse("<body onload=\"go()\">").scripts.handlers)
        #expect(try parse("<iframe src=\" JavaScript:alert(1)\"></iframe>").scripts.handlers)
        #expect(try parse("<p>plain</p><script type=\"application/json\">[]</script>").scripts.isEmpty)
    }

    @Test("embedded resources: images and srcset, media, style sheets and icons, scripts that run; in document order")
    func embedded() throws {
        let document = try parse("""
            <link rel="stylesheet" href="/site.css"><link rel="Shortcut Icon" href="favicon.ico"><link rel="next" href="2.html">
            <link rel="apple-touch-icon" href="/touch.png"><link rel="preload" href="/font.woff2">
            <script src="app.js"></script><script type="application/json" src="data.json"></script>
            <img src="logo.png" alt=" The
              logo "><img srcset="a.png 1x, b,c.png 2x, d.png (max-width: 10px, 20px) 100w" src="">
            <picture><source srcset="wide.webp" media="(min-width: 800px)"><source src="s.png"></picture>
            <video src="clip.webm"><source src="clip.mp4"></video><audio src="/a.mp3"></audio><video></video>
            <template><img src="t.png"></template><noscript><img src="n.png"></noscript><iframe src="f.html"></iframe>
            """)
        #expect(document.embedded.map { "\($0.element) \($0.attribute) \($0.value)" } == [
            "link href /site.css", "link href favicon.ico", "link href /touch.png", "script src app.js",
            "img src logo.png", "img srcset a.png", "img srcset b,c.png", "img srcset d.png",
            "source srcset wide.webp", "source src s.png", "video src clip.webm", "source src clip.mp4", "audio src /a.mp3",
        ])
        #expect(document.embedded[1].url == "http://127.0.0.1:8080/docs/guide/favicon.ico")
        #expect(document.embedded[0].url == "http://127.0.0.1:8080/site.css")
        #expect(document.embedded.map(\.text) == Array(repeating: "", count: 4) + ["The logo"] + Array(repeating: "", count: 8))
    }

    @Test("a noscript is text up to its first end tag, in the head too, where Gumbo moves what it may not hold into the body")
    func headNoscript() throws {
        let document = try parse("""
            <!doctype html><head><title>T</title><noscript><img src="pixel.png"><a href="n.html" id="n">N</a>
            <link rel="stylesheet" href="n.css"></NoScript ><p id="after"><img src="after.png"><a href="after.html">A</a>
            <svg><link rel="stylesheet" href="svg.css"/><video src="svg.webm"/><img src="out-of-svg.png"></svg>
            """)
        #expect(document.embedded.map(\.value) == ["after.png", "out-of-svg.png"])
        #expect(document.links.map(\.href) == ["after.html"])
        #expect(document.anchors == ["after"])
        #expect(document.title == "T")
        // A noscript with no end tag runs to the end of the document.
        let unclosed = try parse("<title>T</title><noscript><img src=\"p.png\"><p id=\"x\"><a href=\"x.html\">x</a>")
        #expect(unclosed.embedded.isEmpty && unclosed.links.isEmpty && unclosed.anchors.isEmpty)
    }

    @Test("srcset candidates as the HTML standard reads them", arguments: [
        ("a.png", ["a.png"]),
        ("a.png 1x,b.png 2x", ["a.png", "b.png"]),
        ("  a.png,  b.png  ,, c.png 3x ", ["a.png", "b.png", "c.png"]),
        ("data:image/png;base64,AAA= 1x, x.png 2x", ["data:image/png;base64,AAA=", "x.png"]),
        ("a.png (1, 2) 10w, b.png", ["a.png", "b.png"]),
        ("a.png,,,", ["a.png"]),
        ("", []),
        (" , ", []),
    ])
    func srcset(value: String, urls: [String]) {
        #expect(EmbeddedResource.candidates(ofSrcset: value) == urls)
    }

    @Test("an inline script's shape: literals, comments and runs of white space taken out, code kept")
    func scriptShapes() throws {
        #expect(ScriptShape.of("$(document).ready(function(){initNavTree('globals_eval_n.html',''); initResizable(); });")
                == #"$(document).ready(function(){initNavTree("",""); initResizable(); });"#)
        #expect(ScriptShape.of(#"var page = "a \"quoted\" name", n = 0x1F + 1.5e-3 + 10n; // the page's own"#)
                == #"var page = "", n = 0 + 0 + 0;"#)
        #expect(ScriptShape.of("/* a\nlicence */\n  track(`/docs/${path + '}'}/x`,\t\t42)") == #"track("", 0)"#)
        // Names that hold digits stay; a string without its end quote ends with its line; an unterminated comment ends the script.
        #expect(ScriptShape.of("h1.x2 = v3") == "h1.x2 = v3")
        #expect(ScriptShape.of("a('open\n  b()") == "a(\"\"\nb()")
        #expect(ScriptShape.of("go() /* never closed") == "go()")
        // A regular expression stays as written, quotes and slashes in it included; a `/` after a value divides.
        #expect(ScriptShape.of("a = /'/g; b('x')") == #"a = /'/g; b("")"#)
        #expect(ScriptShape.of(#"if (/^https?:\/\//.test(u)) go('/p')"#) == #"if (/^https?:\/\//.test(u)) go("")"#)
        #expect(ScriptShape.of("return /[/]x/i.test(s) // done") == "return /[/]x/i.test(s)")
        #expect(ScriptShape.of("a = b / 2 / c; d = (e) / f['g'] / 3") == #"a = b / 0 / c; d = (e) / f[""] / 0"#)
        // A sign belongs to a decimal exponent only.
        #expect(ScriptShape.of("0x1E+n; 1e+5; 2E-3") == "0+n; 0; 0")
        // Another call, or the same calls in another order, is another shape.
        #expect(ScriptShape.of("show('menu')") != ScriptShape.of("hide('menu')"))
        #expect(ScriptShape.of("a(1); b(2)") != ScriptShape.of("b(2); a(1)"))
        // So the pages of one template are one kind; a page whose script does more is another.
        let first = try parse("<script>initNavTree('a.html','')</script>"), second = try parse("<script>initNavTree('b.html','')</script>")
        let more = try parse("<script>initNavTree('b.html',''); addLinks()</script>")
        #expect(first.scripts == second.scripts && first.scripts != more.scripts)
    }

    @Test("a page that navigates by itself, and the encoding it declares")
    func refreshAndCharset() throws {
        let refresh = try parse("<meta http-equiv=\"Refresh\" content=\"0; url=/next\"><meta charset=\"ISO-8859-1\">")
        #expect(refresh.refresh == "0; url=/next")
        #expect(refresh.declaredCharset == "iso-8859-1")
        let equiv = try parse("<meta http-equiv=\"content-type\" content=\"text/html; charset=Shift_JIS\">")
        #expect(equiv.declaredCharset == "shift_jis")
        #expect(try parse("<p>x</p>").refresh == nil)
    }

    @Test("a document nested deeper than the limit is not parsed; one at the limit is")
    func depth() throws {
        let deep = Array(String(repeating: "<div>", count: 100_000).utf8)
        #expect(throws: HTMLParseError.tooDeep) { try HTMLParser.parseNow(deep, url: page) }
        let atLimit = String(repeating: "<div>", count: NestingScan.limit - 3) + "<a href=x>x</a>"
        #expect(try parse(atLimit).links.count == 1)
    }

    @Test("a document larger than the parser takes is not parsed")
    func size() throws {
        let large = [UInt8](repeating: UInt8(ascii: "a"), count: HTMLParser.maximumBytes + 1)
        #expect(throws: HTMLParseError.tooLarge(bytes: HTMLParser.maximumBytes + 1)) {
            try HTMLParser.parseNow(large, url: page)
        }
    }

    @Test("bytes that are not UTF-8 and markup that is not HTML still parse")
    func malformed() throws {
        let latin1: [UInt8] = Array("<title>caf".utf8) + [0xE9] + Array("</title><a href=\"x".utf8) + [0xFF] + Array("\">".utf8)
        let document = try HTMLParser.parseNow(latin1, url: page)
        #expect(document.title == "caf\u{FFFD}")
        #expect(document.links.count == 1)
        #expect(try parse("<a href='1'<<b></i></table><a href=2>").links.map(\.href) == ["1", "2"])
        #expect(try parse("").links.isEmpty)
    }

    @Test("parse runs on a thread of its own and gives what parseNow gives")
    func parseOnItsThread() async throws {
        let html = String(repeating: "<ul><li>", count: 1000) + "<a href=deep.html>deep</a>"
        let document = try await HTMLParser.parse(Array(html.utf8), url: page)
        #expect(document.links.map(\.href) == ["deep.html"])
    }
}

@Suite struct CharacterEncodingTests {
    let page = URL(string: "http://example.test/dir/page.html")!

    func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE])
            + text.utf16.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test("a byte-order mark says UTF-16, of either order, or UTF-8, whatever else is declared")
    func byteOrderMarks() throws {
        let html = "<meta charset=windows-1252><title>Stra\u{DF}e \u{1F600}</title><a href=x>x</a>"
        for bigEndian in [false, true] {
            let document = try HTMLParser.parseNow(utf16(html, bigEndian: bigEndian), url: page, charset: "iso-8859-1")
            #expect(document.title == "Stra\u{DF}e \u{1F600}")
            #expect(document.links.map(\.href) == ["x"])
            #expect(document.encoding == (bigEndian ? "utf-16be" : "utf-16le"))
        }
        let document = try HTMLParser.parseNow([0xEF, 0xBB, 0xBF] + Array("<title>\u{E9}</title>".utf8), url: page)
        #expect(document.title == "\u{E9}" && document.encoding == "utf-8")
    }

    @Test("the server's charset, then the document's own, with the Encoding Standard's labels")
    func declared() throws {
        let sjis: [UInt8] = Array("<title>".utf8) + [0x93, 0xFA, 0x96, 0x7B] + Array("</title>".utf8)  // 日本
        let fromServer = try HTMLParser.parseNow(sjis, url: page, charset: "Shift_JIS")
        #expect(fromServer.title == "\u{65E5}\u{672C}" && fromServer.encoding == "shift_jis")
        let latin1: [UInt8] = Array("<meta http-equiv=content-type content='text/html; charset=ISO-8859-1'><title>".utf8)
            + [0xE9, 0x80, 0x9F] + Array("</title>".utf8)
        // iso-8859-1 is windows-1252: 0x80 is the euro sign, 0x9F is Ÿ.
        let fromMeta = try HTMLParser.parseNow(latin1, url: page)
        #expect(fromMeta.title == "\u{E9}\u{20AC}\u{178}" && fromMeta.encoding == "iso-8859-1")
        // A document that says UTF-16 in ASCII bytes is UTF-8.
        let claims = try HTMLParser.parseNow(Array("<meta charset=utf-16><title>\u{E9}</title>".utf8), url: page)
        #expect(claims.title == "\u{E9}" && claims.encoding == "utf-8")
    }

    @Test("an encoding navwatch cannot read is read as UTF-8 and said so; bytes an encoding does not allow are U+FFFD")
    func unreadable() throws {
        let unknown = try HTMLParser.parseNow(Array("<title>x</title>".utf8), url: page, charset: "x-klingon")
        #expect(unknown.title == "x" && unknown.encoding == nil)
        let userDefined = try HTMLParser.parseNow(Array("<meta charset=x-user-defined><title>y</title>".utf8), url: page)
        #expect(userDefined.title == "y" && userDefined.encoding == nil)
        // A lone lead byte of Shift_JIS before ASCII, and an odd byte at the end of UTF-16.
        let broken = try HTMLParser.parseNow(Array("<title>a".utf8) + [0x81] + Array("</title>".utf8), url: page, charset: "shift_jis")
        #expect(broken.title == "a\u{FFFD}")
        let odd = try HTMLParser.parseNow(utf16("<title>b</title>", bigEndian: false) + [0x41], url: page)
        #expect(odd.title == "b")
    }

    @Test("a document that grows past the parser's limit once converted is not parsed")
    func growsPastTheLimit() {
        // Each byte 0xE9 of windows-1252 is two bytes of UTF-8.
        let bytes = [UInt8](repeating: 0xE9, count: HTMLParser.maximumBytes / 2 + 1)
        #expect(throws: HTMLParseError.tooLarge(bytes: HTMLParser.maximumBytes + 2)) {
            try HTMLParser.parseNow(bytes, url: page, charset: "windows-1252")
        }
    }
}

@Suite struct NestingScanTests {
    func within(_ html: String, limit: Int) -> Bool {
        Array(html.utf8).withUnsafeBufferPointer { NestingScan.isWithinLimit($0, limit: limit) }
    }

    @Test("start tags count, their end tags take them back, void elements never count")
    func counting() {
        #expect(within("<div><p></p></div><div><br><img><hr></div>", limit: 2))
        #expect(!within("<div><div><div>", limit: 2))
        #expect(within("<div></div><div></div><div></div>", limit: 1))
    }

    @Test("an end tag counts only against an open start tag of its name")
    func strayEndTags() {
        #expect(!within("<div></span><div></b><div>", limit: 2))
    }

    @Test("tags in comments, scripts, styles and quoted attribute values do not count")
    func text() {
        #expect(within("<!-- <div><div><div> --><script>'<div><div><div>'</script>", limit: 1))
        #expect(within("<style>div > p { }</style><p title=\"<div><div><div>\">x</p>", limit: 1))
        #expect(within("<textarea><div><div></TEXTAREA >", limit: 1))
        #expect(!within("<!-- --><div><div>", limit: 1))
    }

    @Test("the self-closing syntax does not close an HTML element")
    func selfClosing() {
        #expect(!within("<div/><div/><div/>", limit: 2))
    }
    @Test("elements whose end tag may be left out close as the tree builder closes them")
    func impliedEndTags() {
        // A mailing-list archive (pipermail): 2,100 items without </LI>, each with a link.
        let archive = "<UL>" + String(repeating: "<LI><A HREF=\"msg.html\">Re: a thread</A><I>someone</I>\n", count: 2100) + "</UL>"
        #expect(within(archive, limit: 3))
        #expect(within(String(repeating: "<p>text", count: 3000), limit: 1))
        #expect(within("<div>" + String(repeating: "<p>one<div>block</div>", count: 3000), limit: 3))
        #expect(within("<dl>" + String(repeating: "<dt>term<dd>definition", count: 3000), limit: 2))
        #expect(within("<select>" + String(repeating: "<optgroup><option>a<option>b", count: 3000), limit: 3))
        #expect(within("<table>" + String(repeating: "<tr><td>a<td>b<th>c", count: 3000), limit: 3))
        #expect(within(String(repeating: "<h1>one<h2>two", count: 3000), limit: 1))
        #expect(within(String(repeating: "<a name=x>anchor without an end tag", count: 3000), limit: 1))
        #expect(within("<ul><li><ul><li>x</ul></ul>" + String(repeating: "<div></div>", count: 10), limit: 4))
        // An end tag closes what is open above its element.
        #expect(within(String(repeating: "<div><span><b>x</div>", count: 3000), limit: 3))
    }

    @Test("where the tree builder would not close an element, neither does the scan")
    func noClosingWhereUnsure() {
        // A <span>'s end tag does not reach past a block; an <option> closes only the current one.
        #expect(!within(String(repeating: "<span><div></span>", count: 3), limit: 5))
        #expect(!within(String(repeating: "<option><b>x", count: 3), limit: 5))
        // A list item inside a block inside a list item does not close the outer one.
        #expect(!within(String(repeating: "<li><section>", count: 3), limit: 5))
        // More than `lookBehind` open elements above its own: the end tag closes nothing.
        let far = "<b>" + String(repeating: "<i>", count: NestingScan.lookBehind) + "</b>"
        #expect(!within(far + "<u>", limit: NestingScan.lookBehind + 1))
    }

    @Test("inside svg and math a self-closing tag is empty")
    func foreignSelfClosing() {
        #expect(within("<svg>" + String(repeating: "<path d='M0 0'/>", count: 3000) + "</svg>", limit: 2))
        #expect(within("<math>" + String(repeating: "<mspace/>", count: 3000) + "</math><div/>", limit: 2))
        #expect(!within("<svg></svg>" + String(repeating: "<div/>", count: 3), limit: 2))
    }
}
