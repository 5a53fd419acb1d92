import Foundation
@testable import NavWatchHTML
import Testing

/// The token reader answers what the reading of Gumbo's tree answers, for
/// the documents it reads, and leaves the others to the tree builder.
@Suite struct HTMLTokenReaderTests {
    static let page = URL(string: "http://127.0.0.1:8080/docs/guide/page.html?v=1#top")!

    /// The token reader's answer for `html`, checked against the tree's; nil when it gave up.
    static func read(_ html: String) throws -> HTMLDocument? {
        let bytes = Array(html.utf8)
        let tree = try HTMLParser.parseTree(bytes, url: page)
        let tokens = bytes.withUnsafeBufferPointer { HTMLTokenReader.read($0, url: page) }
        if let tokens { #expect(tokens == tree, "\(html)") }
        return tokens
    }

    @Test("documents whose tree is the nesting of their tags are read from their tokens, as from the tree", arguments: [
        """
        <!DOCTYPE html>
        <html lang="en" id="root"><head><meta charset="utf-8"><title> The  page\n title </title>
        <link rel="stylesheet" href="s.css"><link rel="icon" href="/f.ico"><script src="a.js"></script>
        <script>var page = 'x'; if (a < b) {}</script><base href="/docs/"></head>
        <body id="b" onload="go()"><div class="nav"><ul><li><a href="one.html">One</a><li><a href="two.html" rel="next">
        Two &amp; <b>three</b></a></ul></div><p id="p1">Text <a href="#p1" title="t">&#182;</a><p>More
        <img src="i.png" srcset="i2.png 2x, i3.png 3x" alt="An  image"><a href="x.html"><img alt="pic" src="p.png"></a>
        <a href="y.html" aria-label="Label"></a><a name="old"></a><h1 id="h">Head<h2>Two</h2>
        <table class="docutils"><colgroup><col style="width: 30%"><col></colgroup><thead><tr><th>A<th>B</thead>
        <tbody><tr><td><a href="t.html">cell</a><td><p>para<tr><td id="c">x</td></tr></tbody></table>
        <table><tr><td>implied</td></tr></table><dl><dt>term<dd>def<dt id="t2">term</dl>
        <pre>
        code <a href="code.html">link</a></pre><textarea>
        area &lt;</textarea><iframe src="frame.html">fallback &amp;</iframe><template id="tp"><a href="no.html">no</a>
        <script>x</script></template><noscript><img src="ns.png"></noscript><video src="v.mp4"></video>
        <span><em>em</em></span><form action="s"><input name="q"><button>Go</button></form>
        <a href="?a=1&b=2&copy=3&amp;c">q</a><a href="&#x41;&notit;&notin;">refs</a>
        <!-- a comment --> <meta http-equiv="refresh" content="5; url=next.html">
        </body></html>
        """,
        "<p>One<p>Two<div>three</div><span>four</div>five",
        "<ul><li>a<ul><li>b</ul><li>c</ul><ol><li><p>x<li>y</ol>",
        "<a href=x>a</a><a href=y><span>b</a>",
        "text only, no tags &amp; a reference",
        "<title>first</title><title>second</title>",
        "<script>document.write('</scr' + 'ipt>')</script><a href=after>after</a>",
        "<a href=x>x<textarea>y</textarea><style>z</style></a>",
        "<h1>a<h2>b</h1>c",
        "<a href=s><svg id=icon viewBox='0 0 2 2'><title>Search</title><path d='M0 0'/><a name=n></a></svg></a>",
        "<table><tbody><tr><td><table><tr><td>in</td></tr></table></td></tr></tbody></table><a href=z>z</a>",
    ])
    func readFromTokens(_ html: String) throws {
        #expect(try Self.read(html) != nil)
    }

    @Test("documents the tree builder moves or copies elements of are left to it", arguments: [
        "<p><a href=x>one<div>two</div></a>",  // the <p> closed by <div> closes the link, copied after it
        "<a href=x>one<a href=y>two</a>",  // a link inside a link
        "<b><i>one</b>two</i>",  // misnested formatting
        "<table><a href=x>moved</a><tr><td>cell</td></tr></table>",  // foster parenting
        "<table><tr>text</tr></table>",
        "<select><option>a</select>",
        "<p>para<table><tr><td>a</td></tr></table>",  // quirks mode decides
        "<body><p>x</p><body id=late>",
        "<noscript><p>text</p></noscript>",
        "<!--> comment",
        "<a href=\"x\u{0}y\">nul</a>",
        "<nav><svg><use href=\"#l\"></use></svg\n><a href=\"/about\">About</a></nav>",  // Gumbo compares </svg\n> as written
        "<html><html><head id=hh><title>t</title>",  // the head started without its tag
        "</head><noscript></noscript><meta id=m><body id=b>",  // a noscript after the head starts the body
        "<a href=\"&#x100000041;\">x</a>",  // Gumbo reads the number modulo 2^32
        "<template><a href=x>t<object></template><p>z",  // the link is rebuilt after the template
        "<b><b><b><b></b></b></b><span></b><a href=u>t</span>z</a>",  // the fourth <b> drops the first
        "<a href=x>a<pre>&#10;b</pre></a>",  // the line feed dropped after <pre>, written as a reference
        "<a href=x>unfinished",
    ])
    func leftToTheTree(_ html: String) throws {
        let bytes = Array(html.utf8)
        let tokens = bytes.withUnsafeBufferPointer { HTMLTokenReader.read($0, url: Self.page) }
        if !html.hasSuffix("unfinished") {
            #expect(tokens == nil, "\(html)")
        } else {
            #expect(tokens == (try HTMLParser.parseTree(bytes, url: Self.page)))
        }
    }

    @Test("character references: named with and without their ;, numeric, in text and in attributes")
    func references() throws {
        let document = try #require(try Self.read("""
            <a href="a?x=1&copy=2&lt3&amp;y&#38;&#x26;z">&copy; &copy &notit; &#128; &#0; &#xD800; &frac12;</a>
            """))
        #expect(document.links.map(\.href) == ["a?x=1&copy=2&lt3&y&&z"])
        #expect(document.links.map(\.text) == ["\u{A9} \u{A9} \u{AC}it; \u{20AC} \u{FFFD} \u{FFFD} \u{BD}"])
    }
}
