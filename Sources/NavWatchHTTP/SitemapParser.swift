import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the root element and the `<loc>` texts of a sitemap or sitemap index
/// with Foundation's `XMLParser` (namespaces processed, so prefixes and the
/// sitemaps.org namespace do not matter; external entities not resolved).
///
/// A `<loc>` counts only as the child of `<url>` under `<urlset>` or of
/// `<sitemap>` under `<sitemapindex>`: the `<image:loc>` of an image
/// extension and the like are not pages. Used once, on one thread.
final class SitemapParser: NSObject, XMLParserDelegate {
    /// The local name of the root element; nil before it.
    private(set) var root: String?
    /// The `<loc>` texts, trimmed, in document order.
    private(set) var locations: [String] = []
    /// Local names of the open elements, outermost first.
    private var openElements: [String] = []
    /// The text of the `<loc>` being read, if any.
    private var location: String?

    /// Parses `data`; on failure, a one-line description of the XML error.
    func parse(_ data: Data) -> String? {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = self
        guard parser.parse() else {
            let error = parser.parserError.map { HTTPFailure.oneLine(String(describing: $0)) } ?? "unknown error"
            return "line \(parser.lineNumber): \(error)"
        }
        return nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        let name = Self.localName(elementName)
        if openElements.isEmpty { root = name }
        openElements.append(name)
        let parent = root == "urlset" ? "url" : root == "sitemapindex" ? "sitemap" : nil
        if name == "loc", openElements.count == 3, openElements[1] == parent {
            location = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        location?.append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        location?.append(String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if let text = location, Self.localName(elementName) == "loc" {
            locations.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
            location = nil
        }
        if !openElements.isEmpty { openElements.removeLast() }
    }

    /// `loc` for `sm:loc`.
    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }
}
