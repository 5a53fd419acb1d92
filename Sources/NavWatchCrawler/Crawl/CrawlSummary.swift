import Histogram

/// What a crawl did, for its closing summary: counters and a sketch of the
/// load times, the same size after a million pages as after ten.
///
/// `Crawler.run` returns the fold of every report it delivered in that run
/// (`add(_:)` in delivery order), with the retries it made and the time it took.
public struct CrawlSummary: Sendable, Equatable {
    /// Reports per `PageLoadReport.Tally` (a tally with none is left out):
    /// the words `navwatch status` and the HTML report use too.
    public private(set) var tallies: [PageLoadReport.Tally: Int] = [:]
    /// Pages loaded and links or resources checked that failed (`Outcome.isFailure`).
    public private(set) var failed = 0
    /// Pages loaded per outcome.
    public private(set) var outcomes: [PageLoadReport.Outcome: Int] = [:]
    /// Pages loaded per HTTP status (pages without a status are not counted).
    public private(set) var statuses: [Int: Int] = [:]
    /// Loaded pages with at least one uncaught error or unhandled rejection.
    public private(set) var pagesWithPageErrors = 0
    /// Loaded pages that logged at least one console error.
    public private(set) var pagesWithConsoleErrors = 0
    /// Time to finish of loaded pages, in whole milliseconds, kept to three
    /// significant digits (HdrHistogram): exact up to 2,047 ms.
    private var loadTimes = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
    /// Pages per render reason (`PageLoadReport.renderReason`), of pages
    /// rendered (`true`) and of pages read from their HTML (`false`); empty
    /// when every page was rendered (`RenderMode.always`).
    public private(set) var renderReasons: [Bool: [PageLoadReport.RenderReason: Int]] = [:]
    /// Pages read from their HTML whose links were not read (`PageLoadReport.linksNotRead`).
    public private(set) var pagesWithLinksNotRead = 0
    /// Of the reports checked, those of resources the pages embed
    /// (`PageLoadReport.resource`), and of those, the ones not ok (an
    /// answer of 400 or more, a failure, a timeout).
    public private(set) var resourcesChecked = 0, resourcesFailing = 0
    /// Pages put back to be loaded again after a transient failure.
    public package(set) var retries = 0
    /// How long the run took, from its start to its last report stored.
    public package(set) var elapsed: Duration = .zero

    package init() {}

    /// The summary of `reports`, as if a crawl had delivered them in this order.
    package init(_ reports: some Sequence<PageLoadReport>) {
        for report in reports { add(report) }
    }

    /// Pages loaded (`Tally.loaded`).
    public var loaded: Int { tallies[.loaded] ?? 0 }
    /// Links and resources checked (`Tally.checked`).
    public var checked: Int { tallies[.checked] ?? 0 }
    /// Links and resources not asked for by a rule (`Tally.skipped`).
    public var skipped: Int { tallies[.skipped] ?? 0 }
    /// Links and resources the guard refused (`Tally.blocked`).
    public var blocked: Int { tallies[.blocked] ?? 0 }
    /// Every report delivered.
    public var reported: Int { tallies.values.reduce(0, +) }

    /// Counts one delivered report.
    package mutating func add(_ report: PageLoadReport) {
        let tally = report.tally
        tallies[tally, default: 0] += 1
        if report.outcome.isFailure { failed += 1 }
        if tally == .checked && !report.isPage {
            resourcesChecked += 1
            if report.outcome != .ok { resourcesFailing += 1 }
        }
        guard tally == .loaded else { return }
        outcomes[report.outcome, default: 0] += 1
        if let status = report.status { statuses[status, default: 0] += 1 }
        if let finish = report.timings.finish { _ = loadTimes.record(UInt64(max(0, finish.rounded()))) }
        if (report.pageErrorCount ?? 0) > 0 { pagesWithPageErrors += 1 }
        if (report.console?.errors ?? 0) > 0 { pagesWithConsoleErrors += 1 }
        if report.linksNotRead != nil { pagesWithLinksNotRead += 1 }
        if let rendered = report.rendered, let reason = report.renderReason {
            renderReasons[rendered, default: [:]][reason, default: 0] += 1
        }
    }

    /// The time to finish, in milliseconds, that `percentile` percent of the
    /// loaded pages took at most (to three significant digits); nil when no
    /// loaded page finished.
    public func loadTime(percentile: Double) -> Double? {
        loadTimes.totalCount == 0 ? nil : Double(loadTimes.valueAtPercentile(percentile))
    }
}
