import Foundation

/// What one sitemap file lists (https://www.sitemaps.org/protocol.html).
public struct SitemapDocument: Sendable, Equatable {
    /// The `<loc>` of every `<url>` of a `<urlset>`, in document order.
    public var pages: [URL]
    /// The `<loc>` of every `<sitemap>` of a `<sitemapindex>`, in document order.
    public var sitemaps: [URL]

    public init(pages: [URL] = [], sitemaps: [URL] = []) {
        self.pages = pages
        self.sitemaps = sitemaps
    }
}
