import Foundation
import NavWatch
import NavWatchHTML
import NavWatchSupport

/// Decides, page by page, whether a crawl with `RenderMode.auto` renders a
/// page or reports what its HTML says, from what rendering pages of the same
/// kind showed. Pure: no I/O; the crawler asks it and tells it what renders found.
///
/// A page's kind is what runs on it (`HTMLDocument.Scripts`: the URLs of its
/// scripts, the shapes of its inline scripts (`ScriptShape`: their code with
/// the literals taken out), whether it has event handler attributes). The
/// rules, per kind:
/// - A page with nothing that runs is never rendered (`no-scripts`).
/// - The first `sampleSize` pages of a kind are rendered (`sample`), and
///   what the render found is compared with the page's HTML
///   (`RenderComparison`). While they are rendering, further pages of the
///   kind wait for the verdict (`wait`).
/// - A render agrees when it kept every link and id of the page's HTML and
///   its title (`RenderComparison`), and added the same links as the kind's
///   first agreeing render did, compared as resolved URLs: none, or the same
///   menu on every page. Its links are those the page's `load` event left
///   (`PageResult.linksAtLoad`): what scripts add in later tasks comes in a
///   race with any reading, and would make one page agree on one run and
///   disagree on the next.
/// - A link written relative to its page (`menu.html`, `../../menu.html`,
///   not `RenderComparison.isLearnable`) leads to the same place from other
///   directories only when the script writes it for each page (as Doxygen's
///   menu does, from a path in the page's inline script). So while the
///   kind's agreeing renders all come from one directory, a page of the kind
///   in another directory is rendered as a sample too (`sample`; further
///   pages of such directories wait for its verdict): once a render from a
///   second directory added the same URLs, they are the kind's everywhere;
///   one that added others makes the kind disagree.
/// - Once `sampleSize` renders agreed, the kind's pages are reported from
///   their HTML (`sample-agreed`), with the ids the samples' scripts added
///   and the links they added (*learned* links, which say the samples they
///   were learned from); but `spotCheckPercent` percent of them, picked by a
///   hash of the URL's path and query (the same pages on every run, on any
///   host and port), are still rendered and
///   compared (`spot-check`).
/// - Any render of a kind that disagrees, a sample or a spot check, makes
///   every later page of that kind rendered (`kind-disagreed`). Pages of the
///   kind reported from their HTML before it stay as they were.
/// - A render that ends without a page to compare (a timeout, a crash) is no
///   verdict: its place in the sample goes to the next page of the kind.
struct RenderSampler: Sendable {
    /// Renders of a kind that must agree before its pages are read from HTML alone.
    static let sampleSize = 3
    /// The share of an agreed kind's pages still rendered, in percent.
    static let spotCheckPercent: UInt64 = 2

    typealias Kind = HTMLDocument.Scripts

    enum Decision: Equatable, Sendable {
        case readHTML(PageLoadReport.RenderReason)
        case render(PageLoadReport.RenderReason)
        /// Renders of its kind are under way: ask again once one is recorded.
        case wait
    }

    private enum State: Sendable {
        case sampling(agreed: Int, rendering: Int)
        case agreed
        case disagreed
    }

    private var states: [Kind: State] = [:]
    /// Per kind, the ids its renders added to what the HTML had.
    private var addedIDs: [Kind: Set<String>] = [:]
    /// Per kind, the links its first agreeing render added, which every later render must add too.
    private var addedLinks: [Kind: LearnedLinks] = [:]
    /// Agreed kinds with a sample rendering in another directory than their samples'.
    private var confirming: Set<Kind> = []

    /// The links the renders of a kind add to every page, and the renders they were learned from.
    struct LearnedLinks: Sendable, Equatable {
        /// Each link as the first agreeing render had it (its URL absolute).
        var links: [PageFacts.Link]
        /// The links as `target#fragment`.
        var keys: RenderComparison.LinkKeys
        /// The URLs of the samples whose renders added them, in the order recorded.
        var samples: [String]
        /// The directories of the pages whose renders added them, while some
        /// link is written relative to its page; nil once they hold in every
        /// directory (all written absolute or from the root, or added alike
        /// by renders in two directories).
        var directories: Set<Substring>?

        init(links: [PageFacts.Link], keys: RenderComparison.LinkKeys, samples: [String]) {
            (self.links, self.keys, self.samples) = (links, keys, samples)
            let relative = links.contains { !RenderComparison.isLearnable(href: $0.href) }
            directories = relative ? [RenderSampler.directory(of: samples.first ?? "")] : nil
        }

        /// Whether a page at `url` may be given these links without a render of its own.
        func hold(at url: String) -> Bool {
            directories?.contains(RenderSampler.directory(of: url)) ?? true
        }

        /// Counts a render of the page at `url` that added them too.
        mutating func confirm(by url: String, sample: Bool) {
            if sample { samples.append(url) }
            guard let known = directories else { return }
            let directory = RenderSampler.directory(of: url)
            directories = known.contains(directory) ? known : nil
        }
    }

    /// The URL up to the last `/` of its path: the directory a relative link resolves against.
    static func directory(of url: String) -> Substring {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        return path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
    }

    /// What to do with a page of `kind` at `url`. A `render(.sample)` is a
    /// place in the kind's sample: its outcome must come back through
    /// `record` or `abandon`.
    mutating func decide(_ kind: Kind, url: String) -> Decision {
        guard !kind.isEmpty else { return .readHTML(.noScripts) }
        switch states[kind] ?? .sampling(agreed: 0, rendering: 0) {
        case .disagreed:
            return .render(.kindDisagreed)
        case .agreed:
            if let learned = addedLinks[kind], !learned.hold(at: url) {
                return confirming.insert(kind).inserted ? .render(.sample) : .wait
            }
            return Self.isSpotChecked(url) ? .render(.spotCheck) : .readHTML(.sampleAgreed)
        case .sampling(let agreed, let rendering):
            guard agreed + rendering < Self.sampleSize else { return .wait }
            states[kind] = .sampling(agreed: agreed, rendering: rendering + 1)
            return .render(.sample)
        }
    }

    /// What a render of the page at `url`, of `kind` (for `reason`),
    /// showed compared with its HTML; `added` are the links it added, one
    /// for each of `comparison.addedLinks`.
    mutating func record(_ kind: Kind, reason: PageLoadReport.RenderReason, _ comparison: RenderComparison,
                         url: String = "", added: [PageFacts.Link] = []) {
        guard !kind.isEmpty else { return }
        if reason == .sample { release(kind) }
        guard comparison.agrees, learn(comparison.addedLinks, added, beside: comparison.htmlLinks, for: kind, from: url,
                                           sample: reason == .sample) else {
            states[kind] = .disagreed
            return
        }
        addedIDs[kind, default: []].formUnion(comparison.addedIDs)
        if case .sampling(let agreed, let rendering)? = states[kind] {
            states[kind] = agreed + 1 >= Self.sampleSize ? .agreed : .sampling(agreed: agreed + 1, rendering: rendering)
        }
    }

    /// A render for `reason` of a page of `kind` ended with nothing to compare.
    mutating func abandon(_ kind: Kind, reason: PageLoadReport.RenderReason) {
        if reason == .sample { release(kind) }
    }

    /// The ids that renders of `kind` added to their pages' HTML, to add to its pages read from HTML.
    func idsAdded(by kind: Kind) -> Set<String> {
        addedIDs[kind] ?? []
    }

    /// The links that renders of `kind` added to their pages' HTML, to add to its pages read from HTML.
    func linksAdded(by kind: Kind) -> LearnedLinks? {
        addedLinks[kind].flatMap { $0.links.isEmpty ? nil : $0 }
    }

    /// Whether `keys`, the links a render of `kind` added to `htmlLinks`,
    /// are the kind's: the first agreeing render's become the kind's; every
    /// later one must add the same, but for those its HTML has already.
    private mutating func learn(_ keys: RenderComparison.LinkKeys, _ links: [PageFacts.Link], beside htmlLinks: RenderComparison.LinkKeys,
                                for kind: Kind, from url: String, sample: Bool) -> Bool {
        guard let known = addedLinks[kind] else {
            addedLinks[kind] = LearnedLinks(links: links, keys: keys, samples: [url])
            return true
        }
        // The same links as the kind's, but for those the page's own HTML has already.
        guard keys == known.keys.subtracting(htmlLinks) else { return false }
        addedLinks[kind]?.confirm(by: url, sample: sample)
        return true
    }

    private mutating func release(_ kind: Kind) {
        confirming.remove(kind)
        if case .sampling(let agreed, let rendering)? = states[kind] {
            states[kind] = .sampling(agreed: agreed, rendering: max(0, rendering - 1))
        }
    }

    /// Whether `url` is among the spot-checked pages: the FNV-1a hash of
    /// its path and query (what follows `scheme://host:port`), modulo 100.
    /// The same pages whatever host and port serve the site.
    static func isSpotChecked(_ url: String) -> Bool {
        FNV1a.hash(pathAndQuery(of: url)) % 100 < spotCheckPercent
    }

    /// The bytes of `url` from the end of its authority on; all of them when it has none.
    private static func pathAndQuery(of url: String) -> Substring.UTF8View {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes[colon...].starts(with: "://".utf8) else { return url[...].utf8 }
        let authority = bytes.index(colon, offsetBy: 3)
        let end = bytes[authority...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return url[(end ?? bytes.endIndex)...].utf8
    }
}
