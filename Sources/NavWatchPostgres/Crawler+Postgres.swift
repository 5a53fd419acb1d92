import NavWatchCrawler

extension Crawler {
    /// A crawler of `configuration` that keeps its frontier and reports in
    /// the PostgreSQL database of `store`, shared with crawlers on other
    /// machines. The first crawler to start stores its settings; every
    /// other one joins that crawl as one more worker, with those settings
    /// (its own `pageHandler`, `worker` name and view settings apply to the
    /// pages it loads). A worker's leases outlive it by
    /// `CrawlConfiguration.leaseDuration` at most: then another takes its pages.
    ///
    /// - Throws: `CrawlError` when an `include`, `exclude` or `ignore`
    ///   pattern is not a regular expression.
    public init(configuration: CrawlConfiguration, store: PostgresCrawlStore) throws {
        try self.init(configuration: configuration, store: store as any CrawlStore)
    }
}
