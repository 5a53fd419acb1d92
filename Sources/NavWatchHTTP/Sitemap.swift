import Foundation

/// Sitemaps (https://www.sitemaps.org/protocol.html): parsing one file,
/// collecting the pages a sitemap or sitemap index lists, and finding
/// sitemaps in robots.txt.
package enum Sitemap {
    /// The largest sitemap read, uncompressed: the protocol's limit, 50 MiB.
    package static let maximumDocumentBytes = 50 << 20

    /// How deep `pages(at:)` follows sitemap indexes: the top sitemap is at
    /// depth 0, the sitemaps it lists at depth 1, and so on; sitemaps listed
    /// deeper than this are not read.
    package static let maximumIndexDepth = 3

    /// Parses one sitemap (`<urlset>`: pages) or sitemap index
    /// (`<sitemapindex>`: sitemaps). Pure: no I/O.
    ///
    /// Data starting with the gzip magic bytes (0x1f 0x8b) is decompressed
    /// first, whatever it was served as. Namespaces and prefixes do not
    /// matter; the text of `<loc>` is trimmed and may be CDATA. A `<loc>`
    /// that is relative is resolved against `base`, and dropped without one,
    /// as is one that is not a URL.
    ///
    /// - Throws: `SitemapError` (`notASitemap`, with a nil `url`) when the
    ///   data is not UTF-8 XML, has what FoundationXML cannot read (see
    ///   `foundationXMLTrap(in:)`), its root is neither `<urlset>` nor `<sitemapindex>`,
    ///   or it is gzip that does not decompress or decompresses to more than
    ///   `maximumDocumentBytes`.
    package static func parse(_ data: Data, base: URL? = nil) throws -> SitemapDocument {
        var xml = data
        if Gzip.isCompressed(data) {
            let decompressed: (data: Data, cut: Bool)
            do {
                decompressed = try Gzip.decompress(data, maxBytes: maximumDocumentBytes)
            } catch {
                throw SitemapError(url: nil, reason: .notASitemap("gzip data that does not decompress"))
            }
            guard !decompressed.cut else {
                throw SitemapError(url: nil, reason: .notASitemap("more than \(maximumDocumentBytes >> 20) MiB uncompressed"))
            }
            xml = decompressed.data
        }
        guard !xml.isEmpty else { throw SitemapError(url: nil, reason: .notASitemap("the document is empty")) }
        // The protocol wants UTF-8; and FoundationXML stops the process on an
        // element name, attribute name or comment that is not (it force-unwraps
        // their decoding), which libxml2 passes on after an encoding error.
        guard String(validating: xml, as: UTF8.self) != nil else {
            throw SitemapError(url: nil, reason: .notASitemap("it is not UTF-8"))
        }
        if let trap = foundationXMLTrap(in: xml) {
            throw SitemapError(url: nil, reason: .notASitemap(trap))
        }
        let parser = SitemapParser()
        if let error = parser.parse(xml) {
            throw SitemapError(url: nil, reason: .notASitemap("not XML (\(error))"))
        }
        let urls = parser.locations.compactMap { location -> URL? in
            guard !location.isEmpty, let url = URL(string: location, relativeTo: base)?.absoluteURL,
                  url.scheme != nil else { return nil }
            return url
        }
        switch parser.root {
        case "urlset": return SitemapDocument(pages: urls)
        case "sitemapindex": return SitemapDocument(sitemaps: urls)
        case let root?: throw SitemapError(url: nil, reason: .notASitemap("its root element is <\(root)>, not <urlset> or <sitemapindex>"))
        case nil: throw SitemapError(url: nil, reason: .notASitemap("it has no root element"))
        }
    }

    /// Why FoundationXML cannot read `xml` (UTF-8) without stopping the
    /// process, or nil. On Linux it reads a null pointer for a processing
    /// instruction without data (`<?x?>`) and for some declarations of a DTD
    /// (`<!NOTATION`, `<!ATTLIST` without a default, unparsed entities). A
    /// sitemap has neither: such an instruction and any DTD are refused, as
    /// is what would hide them from this look: NUL bytes (libxml2 then reads
    /// UTF-16) and a declared encoding that is not ASCII or a single-byte
    /// superset of it (UTF-7 writes `<` as `+ADw-`).
    static func foundationXMLTrap(in xml: Data) -> String? {
        let bytes = [UInt8](xml)
        guard !bytes.contains(0) else { return "it has NUL bytes" }
        let text = String(decoding: bytes, as: UTF8.self).trimmingPrefix("\u{FEFF}")
        // libxml2 switches encodings as it reads the declaration, even one that does not end in `?>`.
        if text.hasPrefix("<?xml"),
           let encoding = text.prefix(while: { $0 != ">" }).firstMatch(of: /encoding\s*=\s*["']([^"']*)["']/)?.1.lowercased(),
           !(["utf-8", "utf8", "us-ascii", "ascii", "latin1"].contains(encoding)
             || encoding.hasPrefix("iso-8859-") || encoding.hasPrefix("windows-125")) {
            return "it declares the encoding \(encoding), not UTF-8"
        }
        guard !text.contains("<!DOCTYPE") else { return "it has a DTD" }
        var index = 0
        while let start = bytes[index...].firstRange(of: [UInt8(ascii: "<"), UInt8(ascii: "?")])?.lowerBound {
            var end = start + 2
            while end < bytes.count, ![0x20, 0x09, 0x0D, 0x0A, UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
            if end > start + 2, bytes[end...].starts(with: [UInt8(ascii: "?"), UInt8(ascii: ">")]) {
                return "it has a processing instruction without data"
            }
            index = start + 2
        }
        return nil
    }

    /// The pages listed by the sitemap at `url`, following sitemap indexes.
    ///
    /// Indexes are followed depth first, so pages come in document order;
    /// each sitemap is fetched once (an index listing itself or a cycle ends
    /// there), at most `maximumIndexDepth` levels deep. A page listed twice
    /// appears once, at its first place. Fetching stops once `limit` pages
    /// are collected.
    ///
    /// A child sitemap that cannot be read (no answer, a status other than
    /// 2xx, not a sitemap) is skipped: one broken file of an index does not
    /// hide the pages of the others.
    ///
    /// - Throws: `SitemapError` naming `url` when the top sitemap cannot be
    ///   read; `CancellationError` when the task is cancelled.
    package static func pages(at url: URL, using checker: HTTPChecker, limit: Int = 50_000) async throws -> [URL] {
        var pages: [URL] = []
        var listedPages: Set<String> = []
        var fetchedSitemaps: Set<String> = []
        var pending: [(url: URL, depth: Int)] = [(url, 0)]   // a stack: the next sitemap is last
        while pages.count < limit, let (sitemapURL, depth) = pending.popLast() {
            try Task.checkCancellation()
            guard fetchedSitemaps.insert(sitemapURL.absoluteString).inserted else { continue }
            let document: SitemapDocument
            do {
                document = try await read(sitemapURL, using: checker)
            } catch {
                try Task.checkCancellation()
                if depth == 0 { throw error }
                continue
            }
            for page in document.pages where pages.count < limit && listedPages.insert(page.absoluteString).inserted {
                pages.append(page)
            }
            if depth < maximumIndexDepth {
                pending.append(contentsOf: document.sitemaps.reversed().map { ($0, depth + 1) })
            }
        }
        return pages
    }

    /// The sitemap at `url`, fetched and parsed.
    static func read(_ url: URL, using checker: HTTPChecker) async throws -> SitemapDocument {
        let outcome = await checker.get(url, maxBytes: maximumDocumentBytes)
        if let failure = outcome.failure {
            throw SitemapError(url: url, reason: .noAnswer(failure.kind, failure.message))
        }
        guard let status = outcome.status, (200..<300).contains(status) else {
            throw SitemapError(url: url, reason: .status(outcome.status ?? 0))
        }
        do {
            return try parse(outcome.body, base: outcome.finalURL)
        } catch var error as SitemapError {
            error.url = url
            throw error
        }
    }

    /// The URLs of the `Sitemap:` lines of a robots.txt, in order, without
    /// duplicates. The field name is case-insensitive; a relative URL is
    /// resolved against `base` (the robots.txt's URL); comments (`#` to the
    /// end of the line) and a byte order mark before the first line are ignored.
    package static func sitemapURLs(inRobotsTxt text: String, base: URL) -> [URL] {
        var urls: [URL] = []
        var seen: Set<String> = []
        for line in text.trimmingPrefix("\u{FEFF}").split(whereSeparator: \.isNewline) {
            let content = line.prefix { $0 != "#" }
            guard let colon = content.firstIndex(of: ":") else { continue }
            let field = content[..<colon].trimmingCharacters(in: .whitespaces)
            let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard field.lowercased() == "sitemap", !value.isEmpty,
                  let url = URL(string: value, relativeTo: base)?.absoluteURL, url.scheme != nil,
                  seen.insert(url.absoluteString).inserted else { continue }
            urls.append(url)
        }
        return urls
    }
}
