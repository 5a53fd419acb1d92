import NavWatch

/// What the link check keeps of a report: what a link target's problem,
/// detail, listing and cause are worked out from, and nothing else.
///
/// A report is over a kilobyte (timings, metrics, errors) and a crawl can
/// have one per link; this is a tenth of that, most of it the URL and the
/// detail line.
package struct LinkedReport: Sendable, Equatable {
    /// The URL reported.
    package var url: String
    /// What became of it.
    package var outcome: PageLoadReport.Outcome
    /// The HTTP status after redirects, when one came.
    package var status: Int?
    /// How it was checked, when it was not loaded as a page (`PageLoadReport.checkedWith`).
    package var checkedWith: PageLoadReport.CheckMethod?
    /// Whether it lies outside the crawl's scope (`PageLoadReport.isExternal`).
    package var isExternal: Bool
    /// The kind of its error, when it has one.
    package var errorKind: NavigationError.Kind?
    /// The page's title, when it loaded with one.
    package var title: String?
    /// One line on what became of it: the status and its reason, the error,
    /// the download, or why it was not checked.
    package var detail: String

    /// What the link check keeps of `report`.
    package init(_ report: PageLoadReport) {
        url = report.url
        outcome = report.outcome
        status = report.status
        checkedWith = report.checkedWith
        isExternal = report.isExternal
        errorKind = report.error?.kind
        title = report.title
        detail = Self.detail(of: report)
    }

    /// Whether the page was loaded or checked (`PageLoadReport.wasLoaded`).
    package var wasLoaded: Bool { outcome != .skipped && outcome != .blocked }

    /// One line on what became of `report`.
    private static func detail(of report: PageLoadReport) -> String {
        switch report.outcome {
        case .ok, .httpError:
            guard let status = report.status else { return report.outcome.rawValue }
            let reason = HTTPStatus.reason(status)
            return reason.isEmpty ? "\(status)" : "\(status) \(reason)"
        case .failed, .timeout, .crashed:
            guard let error = report.error else { return report.outcome.rawValue }
            return "\(error.kind.rawValue): \(error.message)"
        case .download:
            return "a download" + (report.mime.map { " (\($0))" } ?? "")
        case .skipped, .blocked:
            return "not checked: \(report.outcome.rawValue) (\(report.skipReason?.rawValue ?? "unknown"))"
        }
    }
}
