import Foundation

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
    /// `a`, `area`, `iframe` or `frame`.
    package var element: String

    package init(source: String, target: String, href: String, fragment: String? = nil, text: String,
                rel: String? = nil, element: String = "a") {
        self.source = source
        self.target = target
        self.href = href
        self.fragment = fragment
        self.text = text
        self.rel = rel
        self.element = element
    }
}
