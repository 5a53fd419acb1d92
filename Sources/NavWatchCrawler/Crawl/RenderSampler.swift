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
/// - Once `sampleSize` renders agreed, the kind's pages are reported from
///   their HTML (`sample-agreed`), with the ids the samples' scripts added;
///   but `spotCheckPercent` percent of them, picked by a hash of the URL (the
///   same pages on every run), are still rendered and compared (`spot-check`).
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

    /// What to do with a page of `kind` at `url`. A `render(.sample)` is a
    /// place in the kind's sample: its outcome must come back through
    /// `record` or `abandon`.
    mutating func decide(_ kind: Kind, url: String) -> Decision {
        guard !kind.isEmpty else { return .readHTML(.noScripts) }
        switch states[kind] ?? .sampling(agreed: 0, rendering: 0) {
        case .disagreed:
            return .render(.kindDisagreed)
        case .agreed:
            return Self.isSpotChecked(url) ? .render(.spotCheck) : .readHTML(.sampleAgreed)
        case .sampling(let agreed, let rendering):
            guard agreed + rendering < Self.sampleSize else { return .wait }
            states[kind] = .sampling(agreed: agreed, rendering: rendering + 1)
            return .render(.sample)
        }
    }

    /// What a render of a page of `kind` (for `reason`) showed, compared with its HTML.
    mutating func record(_ kind: Kind, reason: PageLoadReport.RenderReason, _ comparison: RenderComparison) {
        guard !kind.isEmpty else { return }
        if reason == .sample { release(kind) }
        guard comparison.agrees else {
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

    private mutating func release(_ kind: Kind) {
        if case .sampling(let agreed, let rendering)? = states[kind] {
            states[kind] = .sampling(agreed: agreed, rendering: max(0, rendering - 1))
        }
    }

    /// Whether `url` is among the spot-checked pages: its FNV-1a hash, modulo 100.
    static func isSpotChecked(_ url: String) -> Bool {
        FNV1a.hash(url.utf8) % 100 < spotCheckPercent
    }
}
