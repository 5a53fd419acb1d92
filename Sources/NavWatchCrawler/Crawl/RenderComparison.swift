import Foundation

/// What rendering a page changed in what a link check reads from it: its
/// links (where they lead, fragments included, as the crawl's link graph
/// has them), the ids its fragments can point at, and its title. Pure.
///
/// - No link of the HTML may be missing from the render; links the render
///   added are allowed (`addedLinks`), and `RenderSampler` decides whether
///   they are what every page of the kind gets (a menu a script builds).
/// - No id of the HTML may be missing from the render; ids the render added
///   are allowed (`addedIDs`), and given to the kind's pages read from HTML
///   (a script that adds a sidebar button adds it to every page).
/// - The titles must be equal (no title and an empty one are equal).
struct RenderComparison: Sendable, Equatable {
    /// Link targets as `target#fragment` (the graph's canonical target and fragment).
    typealias LinkKeys = Set<String>

    /// Whether the render kept what the HTML had: every link and id, and the title.
    let agrees: Bool
    /// The HTML's links, as `target#fragment`.
    let htmlLinks: LinkKeys
    /// Links the render had and the HTML did not, as `target#fragment`.
    let addedLinks: LinkKeys
    /// Ids the render had and the HTML did not.
    let addedIDs: Set<String>
    /// What the render did not keep, in a few words (empty when it agreed).
    let difference: String

    init(html: (links: LinkKeys, anchors: Set<String>, title: String?),
         rendered: (links: LinkKeys, anchors: Set<String>, title: String?)) {
        htmlLinks = html.links
        addedLinks = rendered.links.subtracting(html.links)
        addedIDs = rendered.anchors.subtracting(html.anchors)
        var differences: [String] = []
        let removed = html.links.subtracting(rendered.links)
        if !removed.isEmpty { differences.append("\(removed.count) links removed") }
        let idsRemoved = html.anchors.subtracting(rendered.anchors)
        if !idsRemoved.isEmpty { differences.append("\(idsRemoved.count) ids removed") }
        if (html.title ?? "") != (rendered.title ?? "") { differences.append("title changed") }
        agrees = differences.isEmpty
        difference = differences.joined(separator: ", ")
    }

    /// Whether a link a script added, written `href`, leads to the same
    /// place from every page of a site: an absolute URL (`https://…`,
    /// `//host/…`) or a path from the root (`/docs/…`). A relative one
    /// (`other.html`, `#top`) leads elsewhere from each page, so pages
    /// cannot be given it from another page's render.
    static func isLearnable(href: String) -> Bool {
        let href = href.trimmingCharacters(in: .whitespaces)
        if href.hasPrefix("/") { return true }
        guard let colon = href.firstIndex(of: ":") else { return false }
        // A scheme: an ASCII letter, then ASCII letters, digits, `+`, `-` or `.`.
        let scheme = Array(href[..<colon].utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }
}
