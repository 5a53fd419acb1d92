import NavWatch
import WebKitThread

/// What `CrawlConfiguration.fast` changes in the views of a crawl, and nothing else.
package enum FastProfile {
    /// Subresources never requested.
    package static let blocked: Set<ContentFilter.ResourceType> = [.image, .font, .media, .styleSheet, .script]
    /// The viewport, in CSS pixels: layout and paint cost grow with it.
    package static let viewportWidth = 320, viewportHeight = 240

    /// `configuration` with the page's own scripts off, `blocked` filtered
    /// out and the small viewport; the rest (user agent, storage, TLS, sandbox,
    /// proxy, timeout) as it was.
    @WebKitActor
    package static func applied(to configuration: WebViewConfiguration) async throws -> WebViewConfiguration {
        var fast = configuration
        fast.javaScriptEnabled = false
        fast.imagesEnabled = false
        fast.contentFilter = try await ContentFilter.blocking(blocked)
        fast.viewportWidth = viewportWidth
        fast.viewportHeight = viewportHeight
        return fast
    }
}
