import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing
@testable import NavWatchHTTP

@Suite("Sitemap") struct SitemapTests {
    private func urls(_ strings: String...) -> [URL] { strings.map { URL(string: $0)! } }

    @Test("a urlset gives its pages, trimmed, CDATA included, extensions' locs left out")
    func urlset() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
                    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
              <url>
                <loc>
                  https://example.com/one
                </loc>
                <lastmod>2024-01-01</lastmod>
                <image:image><image:loc>https://example.com/one.png</image:loc></image:image>
              </url>
              <url><loc><![CDATA[https://example.com/two?a=1&b=2]]></loc></url>
              <url><loc>https://example.com/three?x=1&amp;y=2</loc></url>
            </urlset>
            """
        let document = try Sitemap.parse(Data(xml.utf8))
        #expect(document == SitemapDocument(pages: urls("https://example.com/one", "https://example.com/two?a=1&b=2",
                                                        "https://example.com/three?x=1&y=2")))
    }

    @Test("a sitemap index gives its sitemaps")
    func sitemapIndex() throws {
        let xml = """
            <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
              <sitemap><loc>https://example.com/s2.xml.gz</loc></sitemap>
            </sitemapindex>
            """
        let document = try Sitemap.parse(Data(xml.utf8))
        #expect(document == SitemapDocument(sitemaps: urls("https://example.com/s1.xml", "https://example.com/s2.xml.gz")))
    }

    @Test("gzip data is decompressed first")
    func gzipped() throws {
        let xml = TestSite.urlset(["https://example.com/a", "https://example.com/b"])
        let compressed = try Gzip.compress(Array(xml.utf8))
        #expect(compressed.prefix(2) == Data([0x1f, 0x8b]))
        #expect(try Sitemap.parse(compressed) == SitemapDocument(pages: urls("https://example.com/a", "https://example.com/b")))
    }

    @Test("prefixed namespaces, no namespace, and relative locs against a base")
    func namespaces() throws {
        let prefixed = """
            <sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
              <sm:url><sm:loc>https://example.com/p</sm:loc></sm:url>
            </sm:urlset>
            """
        #expect(try Sitemap.parse(Data(prefixed.utf8)) == SitemapDocument(pages: urls("https://example.com/p")))
        let bare = "<urlset><url><loc>https://example.com/q</loc></url><url><loc>/relative</loc></url></urlset>"
        #expect(try Sitemap.parse(Data(bare.utf8)) == SitemapDocument(pages: urls("https://example.com/q")))
        #expect(try Sitemap.parse(Data(bare.utf8), base: URL(string: "https://example.com/maps/sitemap.xml"))
                == SitemapDocument(pages: urls("https://example.com/q", "https://example.com/relative")))
    }

    @Test("garbage, HTML, empty data and broken gzip are errors with a one-line description")
    func notSitemaps() throws {
        let garbage = #expect(throws: SitemapError.self) { try Sitemap.parse(Data("this is not xml at all".utf8)) }
        #expect(garbage?.description.hasPrefix("the document is not a sitemap: not XML (") == true)
        #expect(garbage?.description.contains("\n") == false)
        let html = #expect(throws: SitemapError.self) { try Sitemap.parse(Data("<html><body>hi</body></html>".utf8)) }
        #expect(html?.description == "the document is not a sitemap: its root element is <html>, not <urlset> or <sitemapindex>")
        let empty = #expect(throws: SitemapError.self) { try Sitemap.parse(Data()) }
        #expect(empty?.description == "the document is not a sitemap: the document is empty")
        let broken = #expect(throws: SitemapError.self) { try Sitemap.parse(Data([0x1f, 0x8b, 0x00, 0x01, 0x02, 0x03])) }
        #expect(broken?.description == "the document is not a sitemap: gzip data that does not decompress")
        // Found by NavWatchFuzzTests: FoundationXML stopped the process on this element name.
        let latin1 = #expect(throws: SitemapError.self) {
            try Sitemap.parse(Data("<urlset><url><loc>https://example.com/</loc><\u{F0}astmod/></url></urlset>".unicodeScalars.map {
                UInt8($0.value)
            }))
        }
        #expect(latin1?.description == "the document is not a sitemap: it is not UTF-8")
    }

    // Found by NavWatchFuzzTests: FoundationXML read a null pointer on each of these.
    @Test("what FoundationXML cannot read is refused, not parsed", arguments: [
        ("<urlset><?x?><url><loc>https://example.com/</loc></url></urlset>", "it has a processing instruction without data"),
        (#"<!DOCTYPE urlset [<!NOTATION n SYSTEM "x">]><urlset/>"#, "it has a DTD"),
        ("<!DOCTYPE urlset [<!ATTLIST urlset a CDATA #REQUIRED>]><urlset/>", "it has a DTD"),
        (#"<?xml version="1.0" encoding="UTF-7"?>+ADw-urlset+AD4-+ADw-?x?+AD4-+ADw-/urlset+AD4-"#,
         "it declares the encoding utf-7, not UTF-8"),
        ("<\0u\0r\0l\0s\0e\0t\0/\0>\0", "it has NUL bytes"),
    ])
    func foundationXMLTraps(xml: String, reason: String) {
        let error = #expect(throws: SitemapError.self) { try Sitemap.parse(Data(xml.utf8)) }
        #expect(error?.reason == .notASitemap(reason))
    }

    @Test("a stylesheet instruction and a Latin-1 declaration are read")
    func instructionsWithData() throws {
        let xml = #"<?xml version="1.0" encoding="ISO-8859-1"?><?xml-stylesheet type="text/xsl" href="/s.xsl"?>"#
            + "<urlset><url><loc>https://example.com/a</loc></url></urlset>"
        #expect(try Sitemap.parse(Data(xml.utf8)) == SitemapDocument(pages: urls("https://example.com/a")))
    }

    @Test("pages(at:) follows an index (one child gzip, one missing, itself listed): pages in order, once each")
    func pagesOfIndex() async throws {
        try await withSite { server, checker, log in
            let pages = try await withDeadline("the sitemap") {
                try await Sitemap.pages(at: server.url("/sitemap_index.xml"), using: checker)
            }
            #expect(pages == ["/a", "/b", "/shared", "/c"].map { server.url($0) })
            #expect(log.all.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == [
                "GET /sitemap_index.xml", "GET /sitemap-a.xml", "GET /sitemap-missing.xml", "GET /sitemap-b.xml.gz",
            ])
            let limited = try await withDeadline("the sitemap") {
                try await Sitemap.pages(at: server.url("/sitemap_index.xml"), using: checker, limit: 2)
            }
            #expect(limited == ["/a", "/b"].map { server.url($0) })
        }
    }

    @Test("pages(at:) follows indexes at most maximumIndexDepth levels below the top")
    func nestingDepth() async throws {
        try await withSite { server, checker, log in
            let pages = try await withDeadline("the sitemap") {
                try await Sitemap.pages(at: server.url("/nest/0.xml"), using: checker)
            }
            #expect(Sitemap.maximumIndexDepth == 3)
            #expect(pages == [server.url("/p3")])
            #expect(log.all.map { $0.split(separator: " ")[1] } == ["/nest/0.xml", "/nest/1.xml", "/nest/2.xml", "/nest/3.xml", "/nest/b3.xml"])
        }
    }

    @Test("pages(at:) throws when the top sitemap cannot be read, naming it")
    func unreadableTopSitemap() async throws {
        try await withSite { server, checker, _ in
            let missing = server.url("/nope.xml")
            let notFound = await #expect(throws: SitemapError.self) {
                try await withDeadline("the sitemap") { try await Sitemap.pages(at: missing, using: checker) }
            }
            #expect(notFound?.description == "the sitemap \(missing.absoluteString) answered 404")
            let html = server.url("/not-a-sitemap.xml")
            let notASitemap = await #expect(throws: SitemapError.self) {
                try await withDeadline("the sitemap") { try await Sitemap.pages(at: html, using: checker) }
            }
            #expect(notASitemap?.description
                    == "the sitemap \(html.absoluteString) is not a sitemap: its root element is <html>, not <urlset> or <sitemapindex>")
        }
    }

    @Test("sitemapURLs(inRobotsTxt:): Sitemap lines, any case, absolute or relative, comments ignored")
    func robotsTxt() {
        let robots = """
            User-agent: *
            Disallow: /private # sitemap: /not-this.xml
            Sitemap: https://example.com/sitemap.xml
            sitemap:/relative-sitemap.xml\r
            SITEMAP :   https://cdn.example.net/s2.xml.gz   # the images
            Sitemap: https://example.com/sitemap.xml
            Sitemap:
            # Sitemap: https://example.com/commented.xml
            """
        let found = Sitemap.sitemapURLs(inRobotsTxt: robots, base: URL(string: "https://example.com/robots.txt")!)
        #expect(found == urls("https://example.com/sitemap.xml", "https://example.com/relative-sitemap.xml",
                              "https://cdn.example.net/s2.xml.gz"))
        // Found by NavWatchFuzzTests: a byte order mark hid the first line.
        #expect(Sitemap.sitemapURLs(inRobotsTxt: "\u{FEFF}Sitemap: /s.xml", base: URL(string: "https://example.com/robots.txt")!)
                == urls("https://example.com/s.xml"))
    }
}
