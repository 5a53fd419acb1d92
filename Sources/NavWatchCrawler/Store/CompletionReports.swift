/// The reports one `CrawlStore.complete` stored, in the order stored: the
/// page's own report when it was stored, then the skipped reports stored.
///
/// It refers to the skipped links given to `complete` by their positions
/// instead of keeping their reports: a page can have a skipped link per
/// link, and a report is over a kilobyte. Reading an element makes that one
/// report (`SkippedLinks`).
package struct CompletionReports: RandomAccessCollection, Sendable {
    /// The page's own report, when it was stored.
    private var page: PageLoadReport?
    /// The skipped links given to `complete`, stored or not.
    private let skipped: SkippedLinks
    /// The positions in `skipped` of those stored, ascending.
    private var storedSkipped: [Int] = []

    /// None stored yet, of a page whose skipped links are `skipped`.
    package init(skipped: SkippedLinks = []) {
        self.skipped = skipped
    }

    /// Records that the page's own report was stored; before any skipped report.
    package mutating func storedPage(_ report: PageLoadReport) {
        precondition(page == nil && storedSkipped.isEmpty, "the page's report is stored once, before its skipped reports")
        page = report
    }

    /// Records that the skipped report at `position` of `skipped` was stored, after those recorded.
    package mutating func storedSkipped(at position: Int) {
        precondition(skipped.indices.contains(position) && position > (storedSkipped.last ?? -1),
                     "skipped reports are recorded once each, in the order given")
        storedSkipped.append(position)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { (page == nil ? 0 : 1) + storedSkipped.count }

    package subscript(position: Int) -> PageLoadReport {
        guard let page else { return skipped[storedSkipped[position]] }
        return position == 0 ? page : skipped[storedSkipped[position - 1]]
    }
}
