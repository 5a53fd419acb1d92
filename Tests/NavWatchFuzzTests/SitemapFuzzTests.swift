import Foundation
@testable import NavWatchHTTP
import Testing

/// Sitemaps and sitemap indexes, gzip included: `Sitemap.parse` throws a
/// `SitemapError` (not a sitemap, no URL) or lists absolute URLs, pages or
/// sitemaps but not both, no more than the document has `<loc>`s; gzip is
/// transparent; a cut gzip stream gives a prefix of what was compressed.
@Suite struct SitemapFuzzTests {
    @Test("sitemap parsing under generated input")
    func sitemap() {
        FuzzTarget(name: "sitemap", dictionary: Self.dictionary, generators: [{ Self.document(&$0).bytes }],
                   oracles: [Self.document, Self.cutGzip, Self.externalEntity], maximumSize: 64 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "<urlset>", "</urlset>", "<sitemapindex>", "</sitemapindex>", "<url>", "</url>", "<sitemap>", "</sitemap>",
        "<loc>", "</loc>", "<sm:loc>", "<image:loc>", "<![CDATA[", "]]>", "&amp;", "&lt;", "&#x26;", "&#0;", "&x;",
        "<!DOCTYPE urlset [<!ENTITY x \"xx\">]>", "<!ENTITY y SYSTEM \"file:///etc/passwd\">", "<?xml version=\"1.0\"?>",
        " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"", " xmlns:sm=\"s\"", "https://example.com/", "/relative",
        "//host/x", "mailto:a@b", "http://[::1]/", "\u{1F600}", "\u{FEFF}", "<!--", "-->", "\u{1F}\u{8B}",
        "<?x?>", "<?x ?>", "<?xml-stylesheet type=\"text/xsl\" href=\"s.xsl\"?>", "<!NOTATION n SYSTEM \"x\">",
        "<!ATTLIST urlset a CDATA #REQUIRED>", "<!ENTITY e SYSTEM \"x\" NDATA n>", " encoding=\"UTF-7\"",
        " encoding=\"ISO-8859-1\"", " encoding=\"UTF-16\"", "+ADw-", "+AD4-", "\0",
    ]

    static let base = URL(string: "https://example.com/maps/sitemap.xml")!

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let base = FuzzRandom.hash(bytes) % 2 == 0 ? Self.base : nil
        let outcome = try parse(bytes, base: base)
        switch outcome {
        case .failure(let error):
            guard case .notASitemap = error.reason, error.url == nil else {
                throw PropertyFailure(description: "parsing data threw \(error), not `notASitemap` without a URL")
            }
        case .success(let document):
            try require(document.pages.isEmpty || document.sitemaps.isEmpty, "both pages and sitemaps")
            for url in document.pages + document.sitemaps {
                try require(url.scheme != nil && url.baseURL == nil, "\(url) is not an absolute URL")
                try require(URL(string: url.absoluteString)?.scheme != nil, "\(url.absoluteString) does not parse again")
            }
            let xml = Gzip.isCompressed(bytes) ? (try? Gzip.decompress(bytes, maxBytes: Sitemap.maximumDocumentBytes).data) ?? Data() : Data(bytes)
            let locs = String(decoding: xml, as: UTF8.self).components(separatedBy: "loc").count - 1
            try require(document.pages.count + document.sitemaps.count <= locs, "more URLs than the document says loc")
        }
        if !Gzip.isCompressed(bytes) && FuzzRandom.hash(bytes) % 4 == 1 {
            let compressed = try Gzip.compress(bytes)
            let again = try parse(Array(compressed), base: base)
            try require(again == outcome, "gzipped, it parses to \(again), not \(outcome)")
        }
        if case .success = outcome { return true } else { return false }
    }

    private static func parse(_ bytes: [UInt8], base: URL?) throws -> Result<SitemapDocument, SitemapError> {
        do {
            return .success(try Sitemap.parse(Data(bytes), base: base))
        } catch let error as SitemapError {
            return .failure(error)
        } catch {
            throw PropertyFailure(description: "parsing threw \(error), not a SitemapError")
        }
    }

    /// A sitemap or sitemap index from parts, gzipped one time in four, and
    /// the URLs it must give: `<loc>`s with spaces, CDATA, entities,
    /// prefixes, relative URLs, and `<loc>`s elsewhere that do not count.
    @Sendable static func document(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let index = random.oneIn(3)
        let (root, entry) = index ? ("sitemapindex", "sitemap") : ("urlset", "url")
        let prefix = random.pick(["", "", "sm:"])
        let namespace = prefix.isEmpty ? random.pick(["", " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\""])
            : " xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\""
        var xml = random.pick(["", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"]) + "<\(prefix)\(root)\(namespace)"
            + " xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\n"
        var expected: [URL] = []
        for _ in 0..<random.below(6) {
            let (written, meant) = random.pick([
                ("https://example.com/a", "https://example.com/a"), ("  https://example.com/b\n  ", "https://example.com/b"),
                ("<![CDATA[https://example.com/c?x=1&y=2]]>", "https://example.com/c?x=1&y=2"),
                ("https://example.com/d?x=1&amp;y=2", "https://example.com/d?x=1&y=2"), ("/e", "/e"), ("f.xml", "f.xml"),
                ("http://[::1]:8080/g", "http://[::1]:8080/g"), ("https://example.com/caf%C3%A9", "https://example.com/caf%C3%A9"),
                ("https://example.com/caf\u{E9}", "https://example.com/caf\u{E9}"), ("", ""), ("   ", ""), ("a b", "a b"),
            ])
            xml += "  <\(prefix)\(entry)><\(prefix)loc>\(written)</\(prefix)loc>"
            if random.oneIn(3) { xml += "<\(prefix)lastmod>2024-01-01</\(prefix)lastmod>" }
            if random.oneIn(4) { xml += "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>" }
            xml += "</\(prefix)\(entry)>\n"
            if !meant.isEmpty, let url = URL(string: meant, relativeTo: base)?.absoluteURL, url.scheme != nil { expected.append(url) }
        }
        if random.oneIn(5) { xml += "  <other><loc>https://example.com/not-a-page</loc></other>\n" }
        xml += "</\(prefix)\(root)>\n"
        var bytes = Array(xml.utf8)
        if random.oneIn(4) { bytes = Array((try? Gzip.compress(bytes)) ?? Data()) }
        let document = index ? SitemapDocument(sitemaps: expected) : SitemapDocument(pages: expected)
        return (bytes, { bytes in
            let parsed = try Sitemap.parse(Data(bytes), base: base)
            try require(parsed == document, "parsed \(parsed), not \(document)")
        })
    }

    /// A file the sitemaps below try to read through external entities.
    static let secret: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navwatch-fuzz-secret-\(getpid()).txt")
        try? Data("leaked-secret".utf8).write(to: url)
        return url
    }()

    /// A sitemap that names a local file as an external entity (general,
    /// parameter, the DTD itself): its text never reaches a URL.
    @Sendable static func externalEntity(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let file = random.pick([secret.absoluteString, secret.path])
        let xml = random.pick([
            "<!DOCTYPE urlset [<!ENTITY e SYSTEM \"\(file)\">]><urlset><url><loc>https://example.com/&e;</loc></url></urlset>",
            "<!DOCTYPE urlset [<!ENTITY % p SYSTEM \"\(file)\"> %p;]><urlset><url><loc>https://example.com/x</loc></url></urlset>",
            "<!DOCTYPE urlset SYSTEM \"\(file)\"><urlset><url><loc>https://example.com/x</loc></url></urlset>",
            "<!DOCTYPE urlset PUBLIC \"-//x\" \"\(file)\"><urlset><url><loc>https://example.com/&e;</loc></url></urlset>",
            "<urlset xmlns:xi=\"http://www.w3.org/2001/XInclude\"><url><loc><xi:include href=\"\(file)\" parse=\"text\"/></loc></url></urlset>",
        ])
        return (Array(("<?xml version=\"1.0\"?>\n" + xml).utf8), { bytes in
            guard let document = try? Sitemap.parse(Data(bytes), base: base) else { return }
            let urls = (document.pages + document.sitemaps).map(\.absoluteString)
            try require(!urls.contains { $0.contains("leaked") }, "an external entity was read: \(urls)")
        })
    }

    /// A gzipped sitemap cut anywhere, read with a random bound: a prefix of
    /// the original, cut at the bound when it is longer; or, cut inside the
    /// gzip header, `corruptData`.
    @Sendable static func cutGzip(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let original = document(&random).bytes
        let plain = Gzip.isCompressed(original) ? try! Gzip.decompress(original, maxBytes: .max).data : Data(original)
        let compressed = try! Gzip.compress(plain)
        let kept = random.below(compressed.count + 1)
        let bound = random.oneIn(2) ? Int.max : random.below(plain.count + 2)
        return (Array(compressed.prefix(kept)), { bytes in
            let output: (data: Data, cut: Bool)
            do { output = try Gzip.decompress(bytes, maxBytes: bound) } catch {
                try require(kept < 20, "\(kept) of \(compressed.count) bytes do not decompress: \(error)")
                return
            }
            try require(plain.starts(with: output.data), "the output is no prefix of what was compressed")
            try require(output.data.count <= bound, "more than \(bound) bytes")
            try require(output.cut == (output.data.count == bound && plain.count > bound) || !output.cut,
                        "cut at \(output.data.count) bytes with a bound of \(bound)")
            if kept == compressed.count {
                try require(output.data == plain.prefix(bound), "the whole stream gives \(output.data.count) of \(plain.count) bytes")
                try require(output.cut == (plain.count > bound), "cut is \(output.cut) for \(plain.count) bytes and a bound of \(bound)")
            }
        })
    }
}
