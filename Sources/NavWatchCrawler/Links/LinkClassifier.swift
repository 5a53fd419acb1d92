import Foundation
import NavWatchHTML
import Synchronization

/// Sorts a page's links for a crawl: what to load or check next, what to
/// report as skipped, and the page's part of the link graph. Pure: no I/O.
///
/// - `mailto:`, `javascript:`, `tel:`, `data:`, `blob:` and `about:` links
///   are no documents: neither followed, reported nor in the graph.
/// - Every other link is in the graph (once per source, target, text and
///   element), rewritten by the first of `remaps` that matches it,
///   canonicalised, with its fragment.
/// - Each target is decided once per page, the page itself never:
///   another scheme is skipped (`non-http`); matching `ignore`, skipped
///   (`ignored`) and never checked; out of the scope or filtered by
///   `include`/`exclude` it is checked with plain HTTP (`checkExternal`,
///   within `maxDepth`) or skipped (`scope`); deeper than `maxDepth` skipped
///   (`max-depth`); otherwise followed, one level deeper.
/// - A resource the page embeds (`EmbeddedResource`) is in the graph as a
///   resource (`PageLink.resource`), without its fragment, and its target,
///   unless the page decided it as a link, is checked with plain HTTP
///   however deep: inside the scope always (`resource` entries), outside it
///   with `checkExternal` (`externalResource` entries); skipped like a link
///   otherwise.
///
/// A site's pages share most of their links: each link's key and scope are
/// worked out once and remembered (up to `rememberedLinks` of them).
struct LinkClassifier: Sendable {
    /// What a link without its fragment comes to; `key` nil when it has none.
    private struct Target: Sendable {
        var key: String?
        var scheme: String
        var inScope: Bool
        var ignored: Bool
    }

    /// How many links' keys are remembered; past it, they are forgotten and remembered anew.
    static let rememberedLinks = 20_000
    private final class Memory: Sendable {
        let targets = Mutex<[String: Target]>([:])
    }
    private let memory = Memory()

    var scope: CrawlScope
    var seeds: [URL]
    var include: [NSRegularExpression]
    var exclude: [NSRegularExpression]
    var ignore: [NSRegularExpression]
    var maxDepth: Int?
    var checkExternal: Bool
    var remaps: [URLRemap]

    /// - Throws: the error of an `include` or `exclude` pattern that is no regular expression.
    init(_ configuration: CrawlConfiguration, seeds: [URL]) throws {
        scope = configuration.scope
        self.seeds = seeds
        include = try configuration.include.map { try NSRegularExpression(pattern: $0) }
        exclude = try configuration.exclude.map { try NSRegularExpression(pattern: $0) }
        ignore = try configuration.ignore.map { try NSRegularExpression(pattern: $0) }
        maxDepth = configuration.maxDepth
        checkExternal = configuration.checkExternal
        remaps = configuration.remaps
    }

    /// Splits `links` and `embedded`, found on `entry`'s page, into entries
    /// to crawl or check, reports of links skipped, and the page's part of
    /// the link graph, whose links are on the page at `shownAt` (where a redirect led).
    func classify(_ links: [PageFacts.Link], embedded: [EmbeddedResource] = [], from entry: FrontierEntry, shownAt: String)
        -> (discovered: [FrontierEntry], skipped: SkippedLinks, graph: [PageLink]) {
        var discovered: [FrontierEntry] = [], graph: [PageLink] = []
        // A skipped link's report is made when it is read: a report is over
        // a kilobyte, and a page can have a skipped link per link.
        var skipped = SkippedLinks()
        var seen: Set<String> = [], inGraph: Set<PageLink> = []
        // Room for them all at once: a page of documentation has hundreds.
        seen.reserveCapacity(links.count + embedded.count)
        inGraph.reserveCapacity(links.count + embedded.count)
        graph.reserveCapacity(links.count + embedded.count)
        for link in links {
            let hash = link.url.utf8.firstIndex(of: UInt8(ascii: "#"))  // by byte: no grapheme breaking
            let withoutFragment = String(link.url[..<(hash ?? link.url.endIndex)])
            guard let target = target(of: withoutFragment), var key = target.key else { continue }
            let fragment = hash.map { link.url[link.url.index(after: $0)...] }.flatMap { fragment -> String? in
                // Most fragments have no escapes: only those go through Foundation. A
                // text fragment keeps its escapes: they tell a comma or dash of the text
                // from the directive's own (`TextDirective`).
                fragment.utf8.contains(UInt8(ascii: "%")) && !fragment.contains(":~:")
                    ? fragment.removingPercentEncoding : String(fragment)
            }
            var fragmentPart = fragment.flatMap { $0.isEmpty ? nil : $0 }
            if link.reached != nil, let hash, link.url.utf8.index(after: hash) != link.url.utf8.endIndex,
               key == URLCanonicalizer.key(String(URLCanonicalizer.document(shownAt))) {
                // A hash route (by a fragment link, or pushState of `#/…` as hash routers do) is a page
                // of its own: its fragment, as written, is part of its URL.
                key += String(link.url[hash...])
                fragmentPart = nil
            }
            let pageLink = PageLink(source: shownAt, target: key, href: link.href, fragment: fragmentPart,
                                    text: link.text, rel: link.rel.isEmpty ? nil : link.rel, element: link.element,
                                    reached: link.reached, routeTitle: link.routeTitle, learnedFrom: link.learnedFrom)
            if inGraph.insert(pageLink).inserted { graph.append(pageLink) }
            guard seen.insert(key).inserted, key != entry.url else { continue }
            sort(key, target, resource: false, foundOn: entry, into: &discovered, &skipped)
        }
        for resource in embedded {
            let hash = resource.url.utf8.firstIndex(of: UInt8(ascii: "#"))
            // A page that embeds itself is a document WebKit made for an image or a video it shows: no resource.
            guard let target = target(of: String(resource.url[..<(hash ?? resource.url.endIndex)])), let key = target.key,
                  key != entry.url, key != shownAt else { continue }
            let pageLink = PageLink(source: shownAt, target: key, href: resource.value, text: resource.text,
                                    element: resource.element, resource: resource.attribute)
            if inGraph.insert(pageLink).inserted { graph.append(pageLink) }
            guard seen.insert(key).inserted else { continue }
            sort(key, target, resource: true, foundOn: entry, into: &discovered, &skipped)
        }
        return (discovered, skipped, graph)
    }

    /// Where the target `key`, linked (`resource` false) or embedded on
    /// `entry`'s page, goes: skipped for a reason, or an entry to load or
    /// check. A link is followed or checked within `maxDepth`; a resource is
    /// checked however deep.
    private func sort(_ key: String, _ target: Target, resource: Bool, foundOn entry: FrontierEntry,
                      into discovered: inout [FrontierEntry], _ skipped: inout SkippedLinks) {
        let depth = entry.depth + 1
        let tooDeep = !resource && maxDepth.map { depth > $0 } ?? false
        let kind = FrontierEntry.Kind(resource: resource, inScope: target.inScope)
        // A link skipped is reported as a page; a resource skipped, as the resource it is.
        let skip = FrontierEntry(url: key, depth: depth, parent: entry.url, kind: resource ? kind : .page)
        if target.scheme != "http" && target.scheme != "https" {
            skipped.append(skip, .nonHTTP)
        } else if target.ignored {
            skipped.append(skip, .ignored)
        } else if !target.inScope && (!checkExternal || tooDeep) {
            skipped.append(skip, .scope)
        } else if tooDeep {
            skipped.append(skip, .maxDepth)
        } else {
            discovered.append(FrontierEntry(url: key, depth: depth, parent: entry.url, kind: kind))
        }
    }

    /// What the link `text` (without its fragment) comes to; nil for no
    /// document (`mailto:`, `javascript:`, `tel:`, `data:`, `blob:`,
    /// `about:`) or no URL.
    private func target(of text: String) -> Target? {
        if let known = memory.targets.withLock({ $0[text] }) { return known }
        let rewritten = remaps.isEmpty ? text : URLRemap.apply(remaps, to: text)
        guard let url = URL(string: rewritten), let scheme = url.scheme?.lowercased() else { return nil }
        // Not documents: nothing to load or report.
        if ["mailto", "javascript", "tel", "data", "blob", "about"].contains(scheme) { return nil }
        let canonical = URLCanonicalizer.canonical(url)
        let target = Target(key: canonical?.absoluteString, scheme: scheme, inScope: canonical.map(isInScope) ?? false,
                            ignored: canonical.map { Self.matchesAny(ignore, $0.absoluteString) } ?? false)
        memory.targets.withLock { targets in
            if targets.count >= Self.rememberedLinks { targets.removeAll(keepingCapacity: true) }
            targets[text] = target
        }
        return target
    }

    /// Whether the crawl loads `url`: inside its scope and through `include`/`exclude`.
    func isInScope(_ url: URL) -> Bool {
        scope.contains(url, seeds: seeds) && matchesFilters(url)
    }

    private func matchesFilters(_ url: URL) -> Bool {
        let text = url.absoluteString
        if !include.isEmpty, !Self.matchesAny(include, text) { return false }
        return !Self.matchesAny(exclude, text)
    }

    private static func matchesAny(_ expressions: [NSRegularExpression], _ text: String) -> Bool {
        guard !expressions.isEmpty else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expressions.contains { $0.firstMatch(in: text, range: range) != nil }
    }
}
