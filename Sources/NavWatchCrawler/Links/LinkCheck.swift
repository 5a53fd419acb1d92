import Foundation

/// The link graph of a crawl, as its store keeps it.
package struct LinkGraph: Sendable, Equatable {
    /// Every link of every page loaded, in the order stored.
    package var links: [PageLink]
    /// Redirect targets, each with the URL whose report covers it.
    package var aliases: [String: String]
    /// The ids and names of the pages that fragment links point at, by report URL.
    package var anchors: [String: Set<String>]
    /// Whether each text directive (`text=` value) of links to a page
    /// matched the rendered page, by report URL; a value not there was not matched yet.
    package var textFragments: [String: [String: Bool]]

    package init(links: [PageLink] = [], aliases: [String: String] = [:], anchors: [String: Set<String>] = [:],
                 textFragments: [String: [String: Bool]] = [:]) {
        self.links = links
        self.aliases = aliases
        self.anchors = anchors
        self.textFragments = textFragments
    }

    /// The pages that links with a fragment point at (through an alias when
    /// the target is one): the pages whose `anchors` and `textFragments` the graph keeps.
    package var fragmentTargets: Set<String> {
        var pages: Set<String> = []
        for link in links where link.fragment != nil { pages.insert(aliases[link.target] ?? link.target) }
        return pages
    }

    /// Keeps the anchors and the text fragments found of the page at `url`,
    /// as the store's `anchors` and `text_fragments` columns have them, when
    /// a link with a fragment points at it (`fragmentTargets`).
    package mutating func addAnchors(of url: String, anchors: String?, textFragments: String?, among pages: Set<String>) {
        guard pages.contains(url) else { return }
        self.anchors[url] = PageLoadReport.anchors(fromText: anchors)
        let found = TextFragmentTarget.found(fromText: textFragments)
        if !found.isEmpty { self.textFragments[url] = found }
    }
}

/// One link target and every link to it, with what became of it.
package struct CheckedTarget: Sendable, Equatable {
    /// Why a target counts as broken.
    package enum Problem: String, Sendable, CaseIterable {
        /// The target answered with a status of 400 or more.
        case httpError = "http-error"
        /// It could not be reached (DNS, refused, reset, TLS, ...).
        case failed
        case timeout
        /// The web process crashed on every attempt.
        case crashed
        /// A page was expected (a frame, or a URL that reads like a page) and a download came.
        case download
        /// The page loaded but has no element with the fragment's id or name.
        case missingFragment = "missing-fragment"
        /// The page loaded but its rendered text has no match for the
        /// fragment's text directive (`#:~:text=…`), or the directive is not valid.
        case missingTextFragment = "missing-text-fragment"
        /// A route a click reached in the page (`--routes`) that fails or
        /// answers 400 or more when loaded directly, as a shared URL would be.
        case routeNotLoadable = "route-not-loadable"
        /// A route a click reached in the page whose title is another when it
        /// is loaded directly: the server shows another page at its URL.
        case routeDiffers = "route-differs"

        /// Whether it is about the fragment of a page that loaded, not the page.
        package var isFragmentProblem: Bool { self == .missingFragment || self == .missingTextFragment }
    }

    /// The URL, with `#fragment` for a missing fragment.
    package var target: String
    /// What became of the URL; nil when the crawl never got to it.
    package var report: LinkedReport?
    /// Why it is broken; nil when it is not.
    package var problem: Problem?
    /// One line: the status and its reason, the error, the missing fragment, or why it was not checked.
    package var detail: String
    /// Every link to it, ordered by page, then text.
    package var referrers: [PageLink]

    fileprivate init(target: String, report: LinkedReport?, problem: Problem?, detail: String, referrers: [PageLink]) {
        (self.target, self.report, self.problem, self.detail, self.referrers) = (target, report, problem, detail, referrers)
    }

    /// Whether it lies outside the crawl's scope (a link or a resource that
    /// was checked with a plain HTTP request, or skipped as a resource).
    package var isExternal: Bool { report?.isExternal ?? false }

    /// Whether a page embeds it (`PageLink.resource`: an image, a style
    /// sheet, a script, media), whether or not pages link to it too.
    package var isResource: Bool { referrers.contains(where: \.isResource) }
}

/// What a crawl's links came to: every target, broken or not, and the pages
/// only a sitemap led to.
package struct LinkCheckResult: Sendable, Equatable {
    /// Ordered by target.
    package var targets: [CheckedTarget]
    /// Pages found in a sitemap that no loaded page links to, ordered.
    package var orphans: [String]
    /// Pages read from their HTML whose links were not read (`PageLoadReport.linksNotRead`),
    /// with why, ordered by URL: what links to their targets is not known.
    package var linksNotRead: [UnreadPage]

    /// A page whose links were not read, and why.
    package struct UnreadPage: Sendable, Equatable {
        package var url: String
        package var reason: String
    }

    package var broken: [CheckedTarget] { targets.filter { $0.problem != nil } }
    /// Broken link targets inside the crawl's scope (missing fragments and resources aside).
    package var brokenInScope: [CheckedTarget] {
        broken.filter { $0.problem?.isFragmentProblem == false && !$0.isExternal && !$0.isResource }
    }
    /// Broken resources the pages embed, inside the scope or out (`isResource`).
    package var brokenResources: [CheckedTarget] { broken.filter(\.isResource) }
    /// Broken link targets outside the scope, checked with plain HTTP (resources aside).
    package var brokenExternal: [CheckedTarget] {
        broken.filter { $0.problem?.isFragmentProblem == false && $0.isExternal && !$0.isResource }
    }
    /// Links to a fragment their page does not have.
    package var missingFragments: [CheckedTarget] { broken.filter { $0.problem == .missingFragment } }
    /// Links to a text fragment their page's rendered text has no match for.
    package var missingTextFragments: [CheckedTarget] { broken.filter { $0.problem == .missingTextFragment } }

    /// Folds a crawl's link graph and reports into one entry per target.
    ///
    /// The rules:
    /// - A target's fate is the report of its URL, or of the URL it is a
    ///   redirect target of.
    /// - Broken: an HTTP status of 400 or more (after redirects), a failure, a
    ///   timeout, a crash; a download where a page was expected (from a frame,
    ///   or a URL ending in `/`, `.html`, `.htm`, `.php` or without an extension).
    /// - Not broken: loaded pages, downloads of files, and skipped links (out
    ///   of scope without `--check-external`, robots, limits): the detail says why.
    /// - A resource a page embeds (`PageLink.resource`) is broken by the same
    ///   rules as a link; its fragment is not checked.
    /// - A fragment is checked when its page loaded in a web view with a
    ///   status below 400: missing when no element has that id and no `<a>`
    ///   that name. Fragments that are not element names are not checked:
    ///   `top` (the top of any page), routes (`#/...`, `#!...`).
    /// - A text fragment (`#:~:text=…`, after an element id or not) is
    ///   missing when a match against the rendered page found no text for one
    ///   of its directives, or one is not valid; one not matched yet (the
    ///   crawl stopped before its end) is not checked.
    /// - A route a click reached in the page is `route-not-loadable` when its
    ///   direct load is broken as above, `route-differs` when that load's
    ///   title is not the one the page showed.
    /// - `policy` may accept other statuses for some URLs (a 403 from a site
    ///   that refuses robots, say), or refuse some below 400.
    package init(graph: LinkGraph, reports: some Sequence<PageLoadReport>, policy: LinkPolicy = .init()) {
        self.init(graph: graph, reports: LinkCheckReports(reports), policy: policy)
    }

    /// As `init(graph:reports:policy:)`, with the reports folded already
    /// (`CrawlStore.linkCheckReports()`): no report is held, only what the
    /// check needs of each. A link is held in `graph` and once more among
    /// its target's referrers; what else is worked out per target is kept
    /// in small records found through one index, by target URL.
    package init(graph: LinkGraph, reports: LinkCheckReports, policy: LinkPolicy = .init()) {
        let linked = reports.reports
        // What became of each target, worked out once for all of its links.
        var fates: [TargetFate] = []
        // By target URL (or with `#fragment`, for a missing fragment): its
        // fate's position in `fates`, and its position in `targets`.
        var slots: [String: Slot] = [:]
        func fate(of target: String) -> TargetFate {
            if let known = slots[target], known.fate >= 0 { return fates[Int(known.fate)] }
            let reportURL = graph.aliases[target] ?? target
            let position = reports.position(of: reportURL) ?? reports.position(of: target)
            let checksFragments = position.map {
                linked[$0].outcome == .ok && linked[$0].checkedWith == nil
                    && Self.problem(of: linked[$0], policy: policy, expectingPage: { false }) == nil
            } ?? false
            let fate = TargetFate(report: position.map(Int32.init) ?? -1,
                                  anchors: checksFragments ? graph.anchors[reportURL] ?? graph.anchors[target] ?? [] : nil,
                                  textFragments: graph.textFragments[reportURL] ?? graph.textFragments[target] ?? [:])
            slots[target, default: Slot()].fate = Int32(fates.count)
            fates.append(fate)
            return fate
        }
        // A target takes its report, problem and detail from its first link.
        // Its links are gathered as their positions in `graph.links`, and
        // copied once, in order, at the end.
        var targets: [CheckedTarget] = []
        var referrers: [[Int32]] = []
        graph.links.withUnsafeBufferPointer { links in  // a link is read in place, not copied
            for position in links.indices {
                let fate = fate(of: links[position].target)
                let checksFragment = links[position].fragment != nil && !links[position].isResource && fate.anchors != nil
                // Most links are to a target seen before, and change nothing but its referrers.
                if links[position].reached == nil, !checksFragment,
                   let index = slots[links[position].target].flatMap({ $0.target >= 0 ? Int($0.target) : nil }) {
                    referrers[index].append(Int32(position))
                    continue
                }
                let link = links[position]
                let report = fate.report >= 0 ? linked[Int(fate.report)] : nil
                var key = link.target
                var problem = report.flatMap { Self.problem(of: $0, policy: policy, expectingPage: { Self.expectsPage(link) }) }
                var detail = report?.detail ?? "not checked: the crawl did not get to it"
                if link.reached != nil, let report,
                   let routeProblem = Self.routeProblem(report, problem: problem, detail: detail, titleInPage: link.routeTitle) {
                    (problem, detail) = routeProblem
                }
                if problem == nil, checksFragment, let anchors = fate.anchors, let fragment = link.fragment,
                   let missing = Self.fragmentProblem(fragment, anchors: anchors, textFragments: fate.textFragments) {
                    key = link.target + "#" + fragment
                    (problem, detail) = missing
                }
                if let index = slots[key].flatMap({ $0.target >= 0 ? Int($0.target) : nil }) {
                    referrers[index].append(Int32(position))
                    // A route's problem is its target's, whichever link came first.
                    if problem == .routeNotLoadable || problem == .routeDiffers {
                        (targets[index].problem, targets[index].detail) = (problem, detail)
                    }
                } else {
                    slots[key, default: Slot()].target = Int32(targets.count)
                    targets.append(CheckedTarget(target: key, report: report, problem: problem, detail: detail, referrers: []))
                    referrers.append([Int32(position)])
                }
            }
        }
        slots = [:]
        fates = []
        // Ordering the links is most of the fold on a big crawl: the targets are shared among the cores.
        // Each iteration writes its own target's links, and only reads the graph.
        let groups = referrers
        let pageRanks = Self.pageRanks(of: graph.links)
        graph.links.withUnsafeBufferPointer { links in
            targets.withUnsafeMutableBufferPointer { buffer in
                nonisolated(unsafe) let (links, targets) = (links, buffer)
                DispatchQueue.concurrentPerform(iterations: targets.count) { index in
                    targets[index].referrers = Self.ordered(groups[index], of: links, pageRanks: pageRanks)
                }
            }
        }
        targets.sort { $0.target < $1.target }
        self.targets = targets
        if reports.sitemapPages.isEmpty {
            orphans = []
        } else {
            var linked: Set<String> = []
            for link in graph.links where link.source != link.target { linked.insert(graph.aliases[link.target] ?? link.target) }
            orphans = reports.sitemapPages.filter { !linked.contains($0) }.sorted()
        }
        linksNotRead = reports.linksNotRead.sorted { $0.url < $1.url }
    }

    /// A link target's report (its position among the `LinkCheckReports`,
    /// -1 for none), and the names its fragments are checked against (nil
    /// when they are not checked: the page did not load in a web view with
    /// a status below 400).
    private struct TargetFate {
        var report: Int32
        var anchors: Set<String>?
        var textFragments: [String: Bool]
    }

    /// Where a URL's fate and target are (-1: not yet).
    private struct Slot {
        var fate: Int32 = -1
        var target: Int32 = -1
    }

    /// What is wrong with a route a click reached in the page, whose direct
    /// load gave `report` (with `problem` and `detail` as a link's target).
    private static func routeProblem(_ report: LinkedReport, problem: CheckedTarget.Problem?, detail: String,
                                     titleInPage: String?) -> (CheckedTarget.Problem, String)? {
        switch problem {
        case .httpError?, .failed?, .timeout?, .crashed?, .download?:
            return (.routeNotLoadable, "works in the page; loaded directly: \(detail)")
        case nil where report.outcome == .ok:
            guard let titleInPage, let title = report.title, title != titleInPage else { return nil }
            return (.routeDiffers, "\"\(titleInPage)\" in the page, \"\(title)\" loaded directly")
        default:
            return nil
        }
    }

    /// What is missing of `fragment` on a page with `anchors` whose text
    /// directives matched as `textFragments` says: the problem and its detail.
    private static func fragmentProblem(_ fragment: String, anchors: Set<String>,
                                        textFragments: [String: Bool]) -> (CheckedTarget.Problem, String)? {
        let (element, values) = TextDirective.split(fragment: fragment) ?? (fragment, [])
        if let element, Self.isCheckable(element) {
            let name = element.utf8.contains(UInt8(ascii: "%")) ? element.removingPercentEncoding ?? element : element
            if !anchors.contains(name) { return (.missingFragment, "no element with id or name \"\(name)\"") }
        }
        for value in values {
            guard let directive = TextDirective(value: value) else {
                return (.missingTextFragment, "\"text=\(value)\" is not a valid text directive")
            }
            if textFragments[value] == false { return (.missingTextFragment, "no text matching \(directive) on the rendered page") }
        }
        return nil
    }

    /// For each link of `links`, the rank of its page's URL among all of
    /// theirs (equal for equal URLs): ordering by it orders by page, and
    /// compares two numbers instead of two URLs. A page's links are stored
    /// together, so its URL is compared once a run of them.
    private static func pageRanks(of links: [PageLink]) -> [Int32] {
        var runs: [(source: String, count: Int)] = []
        for link in links {
            if let last = runs.last, last.source == link.source {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((link.source, 1))
            }
        }
        let byURL = runs.indices.sorted { runs[$0].source < runs[$1].source }
        var runRanks = [Int32](repeating: 0, count: runs.count)
        var rank: Int32 = 0
        for (position, run) in byURL.enumerated() {
            if position > 0, runs[run].source != runs[byURL[position - 1]].source { rank += 1 }
            runRanks[run] = rank
        }
        var ranks: [Int32] = []
        ranks.reserveCapacity(links.count)
        for (run, runRank) in zip(runs, runRanks) { ranks.append(contentsOf: repeatElement(runRank, count: run.count)) }
        return ranks
    }

    /// The links at `positions` of `links` by page, then text, then href,
    /// each link once; `pageRanks` orders their pages (`pageRanks(of:)`).
    private static func ordered(_ positions: [Int32], of links: UnsafeBufferPointer<PageLink>,
                                pageRanks: [Int32]) -> [PageLink] {
        guard positions.count > 1 else { return positions.map { links[Int($0)] } }
        // Sorted on every field (nil before any string), so that equal links
        // end up side by side; positions are sorted, not the links, which are costly to move.
        func rest(_ link: PageLink) -> (String, String, String, String) {
            (link.target, link.fragment.map { "+" + $0 } ?? "", link.rel.map { "+" + $0 } ?? "", link.element)
        }
        let sorted = positions.sorted { first, second in
            let (i, j) = (Int(first), Int(second))
            if pageRanks[i] != pageRanks[j] { return pageRanks[i] < pageRanks[j] }
            if links[i].text != links[j].text { return links[i].text < links[j].text }
            if links[i].href != links[j].href { return links[i].href < links[j].href }
            return rest(links[i]) < rest(links[j])
        }
        var unique: [PageLink] = []
        unique.reserveCapacity(sorted.count)
        unique.append(links[Int(sorted[0])])
        var last = Int(sorted[0])
        for position in sorted.dropFirst() where links[Int(position)] != links[last] {
            last = Int(position)
            unique.append(links[last])
        }
        return unique
    }

    /// `expectingPage` is asked only of a download (it parses the link's URL).
    private static func problem(of report: LinkedReport, policy: LinkPolicy,
                                expectingPage: () -> Bool) -> CheckedTarget.Problem? {
        switch report.outcome {
        case .ok, .httpError:
            guard let status = report.status else { return report.outcome == .ok ? nil : .httpError }
            return policy.accepts(status, for: report.url) ? nil : .httpError
        case .skipped, .blocked: return nil
        case .failed: return .failed
        case .timeout: return .timeout
        case .crashed: return .crashed
        case .download: return expectingPage() ? .download : nil
        }
    }

    private static func expectsPage(_ link: PageLink) -> Bool {
        if link.isResource { return false }
        if link.element == "iframe" || link.element == "frame" { return true }
        guard let path = URL(string: link.target)?.path, !path.isEmpty, !path.hasSuffix("/") else { return true }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: ".") else { return true }
        return ["html", "htm", "xhtml", "php", "asp", "aspx", "jsp"].contains(name[name.index(after: dot)...].lowercased())
    }

    private static func isCheckable(_ fragment: String) -> Bool {
        !fragment.isEmpty && !(fragment.utf8.count == 3 && fragment.lowercased() == "top") && !fragment.hasPrefix("/")
            && !fragment.hasPrefix("!")
    }
}
