import Foundation

/// A URL waiting in (or taken from) the crawl frontier.
package struct FrontierEntry: Sendable, Equatable {
    /// What the crawl does with an entry.
    package enum Kind: String, Sendable, CaseIterable {
        /// A page to load in a web view, found from a seed or a link.
        case page
        /// A page to load in a web view, found first in a sitemap.
        case sitemapPage = "sitemap-page"
        /// A link outside the crawl's scope, checked with a plain HTTP
        /// request at the pace of checks there (`CrawlConfiguration.externalDelay`).
        case external
        /// A resource a page embeds from inside the scope (an image, a style
        /// sheet, a script, media), checked with a plain HTTP request at the
        /// pace of the site's pages.
        case resource
        /// A resource a page embeds from outside the scope, checked as a
        /// link outside it is (`external`).
        case externalResource = "external-resource"

        /// Whether the entry is checked with a plain HTTP request, not loaded as a page.
        package var isCheck: Bool { self != .page && self != .sitemapPage }
        /// Whether the entry lies outside the crawl's scope: checked at the pace of checks there.
        package var isOutside: Bool { self == .external || self == .externalResource }
        /// Whether a page embeds the entry rather than links to it.
        package var isResource: Bool { self == .resource || self == .externalResource }

        /// The kind of a link (`resource` false) or a resource found on a
        /// page, and to be checked or loaded, inside the scope or out.
        package init(resource: Bool, inScope: Bool) {
            switch (resource, inScope) {
            case (false, true): self = .page
            case (false, false): self = .external
            case (true, true): self = .resource
            case (true, false): self = .externalResource
            }
        }
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
    package var host: String { kind.isOutside ? Self.externalPrefix + Self.host(of: url) : Self.host(of: url) }

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
