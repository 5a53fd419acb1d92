import Foundation

/// What one sitemap file lists (https://www.sitemaps.org/protocol.html).
package struct SitemapDocument: Sendable, Equatable {
    /// The `<loc>` of every `<url>` of a `<urlset>`, in document order.
    package var pages: [URL]
    /// The `<loc>` of every `<sitemap>` of a `<sitemapindex>`, in document order.
    package var sitemaps: [URL]

    package init(pages: [URL] = [], sitemaps: [URL] = []) {
        self.pages = pages
        self.sitemaps = sitemaps
    }
}
