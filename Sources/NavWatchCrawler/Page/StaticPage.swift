import Foundation
import NavWatchHTML
import NavWatchHTTP

/// A page of the crawl fetched with plain HTTP and parsed, before the crawl
/// decides whether to render it (`RenderMode.auto`) or to report what its
/// HTML says.
struct StaticPage: Sendable {
    /// What the fetch got.
    var document: HTTPDocument
    /// The parsed document: nil when the answer is no HTML, there was none, or it was not parsed.
    var html: HTMLDocument?
    /// Why an HTML answer was not parsed.
    var unparsed: HTMLParseError?
    /// When the fetch started.
    var startedAt: Date
    /// Whether the body was valid UTF-8, or in an encoding it named (the body
    /// itself is let go once parsed).
    var isUTF8 = true

    /// What runs on the page: its kind, for `RenderSampler`.
    var kind: HTMLDocument.Scripts { html?.scripts ?? .init() }

    /// The MIME types read as HTML. XHTML is not: WebKit parses it as XML.
    static let htmlTypes: Set<String> = ["text/html"]

    /// Fetches `url` with `http` (at most `HTMLParser.maximumBytes` of it) and parses an HTML answer.
    static func fetch(_ url: URL, http: HTTPChecker) async -> StaticPage {
        let startedAt = Date()
        let document = await http.document(url, maxBytes: HTMLParser.maximumBytes)
        var page = StaticPage(document: document, startedAt: startedAt)
        // An answer without a type is read as HTML, as a browser sniffs it.
        guard document.status != nil, htmlTypes.contains(document.mimeType ?? "text/html") else { return page }
        guard !document.truncated else {
            page.unparsed = .tooLarge(bytes: HTMLParser.maximumBytes + 1)
            return page
        }
        do {
            page.html = try await HTMLParser.parse(Array(document.body), url: document.finalURL, charset: document.charset)
        } catch {
            page.unparsed = error
        }
        if document.charset == nil && page.html?.declaredCharset == nil && page.html?.encoding == "utf-8" {
            page.isUTF8 = String(validating: document.body, as: UTF8.self) != nil
        }
        page.document.body = Data()  // pages waiting to be rendered keep only what was read
        return page
    }

    /// Why this page must be rendered to be known, whatever its kind; nil
    /// when its HTML can speak for it (or there is nothing to render).
    var mustRender: PageLoadReport.RenderReason? {
        if unparsed != nil || document.mimeType == "application/xhtml+xml" { return .unparsed }
        guard let html else { return nil }
        if html.refresh != nil { return .metaRefresh }
        // An encoding named that navwatch cannot read, or bytes in none named that are not UTF-8.
        if html.encoding == nil || !isUTF8 { return .charset }
        return nil
    }

    /// The resources the page embeds.
    var embedded: [EmbeddedResource] { html?.embedded ?? [] }

    /// The page's links as the crawl sorts them.
    var links: [PageFacts.Link] {
        (html?.links ?? []).map { PageFacts.Link(url: $0.url, href: $0.href, text: $0.text, rel: $0.rel, element: $0.element) }
    }
}
