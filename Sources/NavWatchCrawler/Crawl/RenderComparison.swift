/// Whether rendering a page changed what a link check reads from it: its
/// links (where they lead, fragments included, as the crawl's link graph
/// has them), the ids its fragments can point at, and its title. Pure.
///
/// - The links must be the same set: a link a script added, or removed, is a
///   disagreement (the script decides what the check finds).
/// - No id of the HTML may be missing from the render; ids the render added
///   are allowed (`addedIDs`), and given to the kind's pages read from HTML
///   (a script that adds a sidebar button adds it to every page).
/// - The titles must be equal (no title and an empty one are equal).
struct RenderComparison: Sendable, Equatable {
    /// Link targets as `target#fragment` (the graph's canonical target and fragment).
    typealias LinkKeys = Set<String>

    /// Whether the render agreed with the HTML.
    let agrees: Bool
    /// Ids the render had and the HTML did not.
    let addedIDs: Set<String>
    /// What differed, in a few words (empty when it agreed).
    let difference: String

    init(html: (links: LinkKeys, anchors: Set<String>, title: String?),
         rendered: (links: LinkKeys, anchors: Set<String>, title: String?)) {
        addedIDs = rendered.anchors.subtracting(html.anchors)
        var differences: [String] = []
        let added = rendered.links.subtracting(html.links), removed = html.links.subtracting(rendered.links)
        if !added.isEmpty { differences.append("\(added.count) links added") }
        if !removed.isEmpty { differences.append("\(removed.count) links removed") }
        let idsRemoved = html.anchors.subtracting(rendered.anchors)
        if !idsRemoved.isEmpty { differences.append("\(idsRemoved.count) ids removed") }
        if (html.title ?? "") != (rendered.title ?? "") { differences.append("title changed") }
        agrees = differences.isEmpty
        difference = differences.joined(separator: ", ")
    }
}
