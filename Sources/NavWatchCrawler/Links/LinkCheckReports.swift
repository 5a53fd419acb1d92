/// A crawl's reports as its link check reads them, folded one at a time
/// (`add`), so that they can come straight from a store
/// (`CrawlStore.linkCheckReports()`) without an array of them all.
///
/// It keeps the first report of each URL as a `LinkedReport`, and the URLs
/// of the pages a sitemap listed and of those whose links were not read;
/// nothing else of a report is kept once it is added. A crawl can have a
/// report per link: the reports are kept in one array, found by URL through
/// a small index, and equal detail lines share one string.
package struct LinkCheckReports: Sendable {
    /// What the link check keeps of the first report of each URL, in the order added.
    private(set) var reports: [LinkedReport] = []
    /// The position in `reports` of each URL's.
    private var positions: [String: Int32] = [:]
    /// The detail lines so far, each kept once: most reports share theirs
    /// with many others (`200 OK`, `not checked: skipped (max-depth)`).
    private var details: Set<String> = []
    /// The pages loaded that a sitemap listed, in the order added: orphans unless linked.
    private(set) var sitemapPages: [String] = []
    /// The pages whose links were not read, in the order added.
    private(set) var linksNotRead: [LinkCheckResult.UnreadPage] = []

    /// None yet.
    package init() {}

    /// `reports`, each added in turn.
    package init(_ reports: some Sequence<PageLoadReport>) {
        for report in reports { add(report) }
    }

    /// Adds `report`: what the link check needs of it, unless its URL has a report already.
    package mutating func add(_ report: PageLoadReport) {
        if positions[report.url] == nil {
            var linked = LinkedReport(report)
            linked.detail = details.insert(linked.detail).memberAfterInsert
            positions[report.url] = Int32(reports.count)
            reports.append(linked)
        }
        if report.foundInSitemap == true && report.wasLoaded { sitemapPages.append(report.url) }
        if let reason = report.linksNotRead { linksNotRead.append(LinkCheckResult.UnreadPage(url: report.url, reason: reason)) }
    }

    /// The position in `reports` of the report of `url`, when it has one.
    func position(of url: String) -> Int? {
        positions[url].map(Int.init)
    }
}
