import Foundation

/// A URL waiting in (or taken from) the crawl frontier.
package struct FrontierEntry: Sendable, Equatable {
    /// What the crawl does with an entry.
    package enum Kind: String, Sendable {
        /// A page to load in a web view, found from a seed or a link.
        case page
        /// A page to load in a web view, found first in a sitemap.
        case sitemapPage = "sitemap-page"
        /// A link outside the crawl's scope, or a resource a page embeds from
        /// outside it, checked with a plain HTTP request at the pace of
        /// checks there (`CrawlConfiguration.externalDelay`).
        case external
        /// A resource a page embeds from inside the scope (an image, a style
        /// sheet, a script, media), checked with a plain HTTP request at the
        /// pace of the site's pages.
        case resource

        /// Whether the entry is checked with a plain HTTP request, not loaded as a page.
        package var isCheck: Bool { self == .external || self == .resource }
    }

    /// The canonical URL, also the deduplication key.
    package var url: String
    package var depth: Int
    package var parent: String?
    /// Attempts made so far.
    package var attempts: Int
    package var kind: Kind
    /// Seconds the host's requests are kept apart when the entry was leased:
    /// the crawl's delay, or the host's pacing after push backs
    /// (`HostPacing.interval`) when that is longer; 0 for an entry not leased.
    /// The lease spaces leases; a worker also waits this long after its
    /// crawler's last request to the host before it asks (`Crawler.waitForTurn`).
    package var spacing: Double = 0

    package init(url: String, depth: Int, parent: String?, attempts: Int = 0, kind: Kind = .page) {
        self.url = url
        self.depth = depth
        self.parent = parent
        self.attempts = attempts
        self.kind = kind
    }

    /// The host that politeness is kept for, lower-cased; empty when none.
    /// Checks of links outside the scope keep their own pace (`external host`),
    /// so that they never hold up the pages of a host the crawl loads too.
    package var host: String { kind == .external ? Self.externalPrefix + Self.host(of: url) : Self.host(of: url) }

    private static let externalPrefix = "external "

    /// The host name a pacing key (`host`) is kept for, and whether it is
    /// the pace of links checked there (`external host`) rather than of pages.
    package static func pacedHost(_ key: String) -> (name: String, checksLinks: Bool) {
        key.hasPrefix(externalPrefix) ? (String(key.dropFirst(externalPrefix.count)), true) : (key, false)
    }

    package static func host(of url: String) -> String {
        URL(string: url)?.host?.lowercased() ?? ""
    }
}
