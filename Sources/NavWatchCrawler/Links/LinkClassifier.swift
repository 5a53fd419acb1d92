import Foundation

/// Sorts a page's links for a crawl: what to load or check next, what to
/// report as skipped, and the page's part of the link graph. Pure: no I/O.
///
/// - `mailto:`, `javascript:`, `tel:`, `data:`, `blob:` and `about:` links
///   are no documents: neither followed, reported nor in the graph.
/// - Every other link is in the graph (once per source, target, text and
///   element), canonicalised, with its fragment.
/// - Each target is decided once per page, the page itself never:
///   another scheme is skipped (`non-http`); out of the scope or filtered by
///   `include`/`exclude` it is checked with plain HTTP (`checkExternal`,
///   within `maxDepth`) or skipped (`scope`); deeper than `maxDepth` skipped
///   (`max-depth`); otherwise followed, one level deeper.
struct LinkClassifier: Sendable {
    var scope: CrawlScope
    var seeds: [URL]
    var include: [NSRegularExpression]
    var exclude: [NSRegularExpression]
    var maxDepth: Int?
    var checkExternal: Bool

    /// - Throws: the error of an `include` or `exclude` pattern that is no regular expression.
    init(_ configuration: CrawlConfiguration, seeds: [URL]) throws {
        scope = configuration.scope
        self.seeds = seeds
        include = try configuration.include.map { try NSRegularExpression(pattern: $0) }
        exclude = try configuration.exclude.map { try NSRegularExpression(pattern: $0) }
        maxDepth = configuration.maxDepth
        checkExternal = configuration.checkExternal
    }

    /// Splits `links`, found on `entry`'s page, into entries to crawl or
    /// check, reports of links skipped, and the page's part of the link
    /// graph, whose links are on the page at `shownAt` (where a redirect led).
    func classify(_ links: [PageFacts.Link], from entry: FrontierEntry, shownAt: String)
        -> (discovered: [FrontierEntry], skipped: [PageLoadReport], graph: [PageLink]) {
        var discovered: [FrontierEntry] = [], skipped: [PageLoadReport] = [], graph: [PageLink] = []
        var seen: Set<String> = [], inGraph: Set<PageLink> = []
        for link in links {
            guard let url = URL(string: link.url), let scheme = url.scheme?.lowercased() else { continue }
            // Not documents: nothing to load or report.
            if ["mailto", "javascript", "tel", "data", "blob", "about"].contains(scheme) { continue }
            guard let canonical = URLCanonicalizer.canonical(url) else { continue }
            let pageLink = PageLink(source: shownAt, target: canonical.absoluteString, href: link.href,
                                    fragment: url.fragment?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 },
                                    text: link.text, rel: link.rel.isEmpty ? nil : link.rel, element: link.element)
            if inGraph.insert(pageLink).inserted { graph.append(pageLink) }
            guard seen.insert(canonical.absoluteString).inserted, canonical.absoluteString != entry.url else { continue }
            let child = FrontierEntry(url: canonical.absoluteString, depth: entry.depth + 1, parent: entry.url)
            let tooDeep = maxDepth.map { child.depth > $0 } ?? false
            if scheme != "http" && scheme != "https" {
                skipped.append(.skipped(child, .nonHTTP))
            } else if !isInScope(canonical) {
                if checkExternal && !tooDeep {
                    discovered.append(FrontierEntry(url: child.url, depth: child.depth, parent: child.parent, kind: .external))
                } else {
                    skipped.append(.skipped(child, .scope))
                }
            } else if tooDeep {
                skipped.append(.skipped(child, .maxDepth))
            } else {
                discovered.append(child)
            }
        }
        return (discovered, skipped, graph)
    }

    /// Whether the crawl loads `url`: inside its scope and through `include`/`exclude`.
    func isInScope(_ url: URL) -> Bool {
        scope.contains(url, seeds: seeds) && matchesFilters(url)
    }

    private func matchesFilters(_ url: URL) -> Bool {
        let text = url.absoluteString
        let range = NSRange(text.startIndex..., in: text)
        if !include.isEmpty, !include.contains(where: { $0.firstMatch(in: text, range: range) != nil }) { return false }
        return !exclude.contains { $0.firstMatch(in: text, range: range) != nil }
    }
}
