import Foundation
import NavWatch

/// One link on a crawled page: where it is, where it points and how it reads.
/// The crawl keeps every link of every page it loaded (the link graph), so
/// that a broken target can be traced to every page that links to it.
package struct PageLink: Codable, Sendable, Hashable {
    /// The page the link is on: where its report's URL led (its final URL,
    /// after redirects), canonical.
    package var source: String
    /// Where it points: canonical, without the fragment.
    package var target: String
    /// The attribute as written in the document (`href`, or `src` of a frame).
    package var href: String
    /// The fragment it points at, percent-decoded; nil when it has none or an empty one.
    package var fragment: String?
    /// The link's text (or its image's `alt`, `aria-label`, `title`), 200 characters at most.
    package var text: String
    /// The `rel` attribute (`nofollow`, ...); nil when absent.
    package var rel: String?
    /// `a`, `area`, `iframe` or `frame`; the element clicked for where a
    /// click leads; for a resource, its element (`img`, `link`, `script`, ...).
    package var element: String
    /// For a route a click reached in the page (`--routes`): how the URL changed.
    package var reached: SameDocumentNavigation.Kind?
    /// For a route a click reached in the page: the document's title there.
    package var routeTitle: String?
    /// For a link the page was given from the renders of its kind, read from
    /// its HTML with `--render auto` (a menu a script adds to every page):
    /// the URLs of the samples whose renders added it; nil for a link found
    /// on the page itself.
    package var learnedFrom: [String]?
    /// For a resource the page embeds (`EmbeddedResource`: an image, a style
    /// sheet, a script, a media source): the attribute its URL is in (`src`,
    /// `srcset` or `href`); nil for a link.
    package var resource: String?

    /// Whether it is a resource the page embeds, not a link.
    package var isResource: Bool { resource != nil }

    package init(source: String, target: String, href: String, fragment: String? = nil, text: String,
                rel: String? = nil, element: String = "a", reached: SameDocumentNavigation.Kind? = nil,
                routeTitle: String? = nil, learnedFrom: [String]? = nil, resource: String? = nil) {
        self.source = source
        self.target = target
        self.href = href
        self.fragment = fragment
        self.text = text
        self.rel = rel
        self.element = element
        self.reached = reached
        self.routeTitle = routeTitle
        self.learnedFrom = learnedFrom
        self.resource = resource
    }

    /// `learnedFrom` for the store's `learned_from` column: the samples' URLs, a line each.
    package var learnedFromText: String? {
        learnedFrom?.joined(separator: "\n")
    }

    /// `learnedFrom` from the store's `learned_from` column.
    package static func learnedFrom(text: String?) -> [String]? {
        text.map { $0.split(separator: "\n").map(String.init) }
    }

    /// Reads the store's `learned_from` column row after row, splitting each
    /// text once while it repeats (the learned links of a page, read in
    /// order, share it).
    package struct LearnedFromReader {
        private var last: (text: String, samples: [String])?

        package init() {}

        /// `learnedFrom` of a row whose column is `text`.
        package mutating func read(_ text: String?) -> [String]? {
            guard let text else { return nil }
            if let last, last.text == text { return last.samples }
            let samples = PageLink.learnedFrom(text: text) ?? []
            last = (text, samples)
            return samples
        }
    }

    /// `reached` and `routeTitle` for the store's `route` column: the kind, then a
    /// newline and the title when there is one; nil for a link that is no route.
    package var routeText: String? {
        reached.map { $0.rawValue + (routeTitle.map { "\n" + $0 } ?? "") }
    }

    /// The route of the store's `route` column.
    package static func route(fromText text: String?) -> (reached: SameDocumentNavigation.Kind?, title: String?) {
        guard let text else { return (nil, nil) }
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        return (SameDocumentNavigation.Kind(rawValue: String(parts[0])), parts.count > 1 ? String(parts[1]) : nil)
    }
}
