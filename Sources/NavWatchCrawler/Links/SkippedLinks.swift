import Foundation

/// The links of a page the crawl will not load, each with its report,
/// made only when it is read.
///
/// A page can have a skipped link per link, and a report is over a
/// kilobyte: a link skipped for a reason is kept as its frontier entry and
/// the reason (a tenth of that), and its report (`PageLoadReport.skipped`,
/// fetched when the page's links were sorted) is made each time it is read,
/// to be stored or delivered. A link answered from `RecentChecks` comes
/// with its report, which is kept as it is, after the others.
package struct SkippedLinks: RandomAccessCollection, Sendable, ExpressibleByArrayLiteral {
    /// The links skipped for a reason, each with its entry and the reason.
    private var entries: [FrontierEntry] = []
    private var reasons: [PageLoadReport.SkipReason] = []
    /// The reports of links answered from an earlier check, after those skipped for a reason.
    private var answered: [PageLoadReport] = []
    /// When the links skipped for a reason were skipped: their reports' `fetchedAt`.
    private let skippedAt: Date

    /// None yet, skipped at `date`.
    package init(at date: Date = Date()) {
        skippedAt = date
    }

    /// Links with `reports`, kept as they are (as answered links are).
    package init(_ reports: [PageLoadReport]) {
        skippedAt = Date()
        answered = reports
    }

    /// Links with `reports`, kept as they are (as answered links are).
    package init(arrayLiteral reports: PageLoadReport...) {
        self.init(reports)
    }

    /// Adds `entry`, skipped for `reason`.
    package mutating func append(_ entry: FrontierEntry, _ reason: PageLoadReport.SkipReason) {
        precondition(answered.isEmpty, "links skipped for a reason come before those answered")
        entries.append(entry)
        reasons.append(reason)
    }

    /// Adds the links with `reports` (answered from an earlier check or the page's own request), after the rest.
    package mutating func append(answered reports: [PageLoadReport]) {
        answered.reserveCapacity(answered.count + reports.count)
        answered += reports
    }

    /// Keeps only the links whose URL `keep` says yes to, in order.
    package mutating func retain(where keep: (String) -> Bool) {
        var kept = 0
        for position in entries.indices where keep(entries[position].url) {
            entries.swapAt(kept, position)
            reasons.swapAt(kept, position)
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        reasons.removeLast(reasons.count - kept)
        answered.removeAll { !keep($0.url) }
    }

    /// The URL of the link at `position`, without making its report.
    package func url(at position: Int) -> String {
        position < entries.count ? entries[position].url : answered[position - entries.count].url
    }

    /// The frontier entry of the link at `position`, done once added: an
    /// answered link is a link or a resource checked, inside the scope or
    /// out, as its report says; the others pages.
    package func entry(at position: Int) -> FrontierEntry {
        guard position >= entries.count else {
            let entry = entries[position]
            return FrontierEntry(url: entry.url, depth: entry.depth, parent: entry.parent, kind: .page)
        }
        let report = answered[position - entries.count]
        return FrontierEntry(url: report.url, depth: report.depth, parent: report.parent,
                             kind: report.checkedWith == nil ? .page
                                 : FrontierEntry.Kind(resource: report.resource == true, inScope: !report.isExternal))
    }

    /// The first link's position: 0.
    package var startIndex: Int { 0 }
    /// The position after the last link: how many there are.
    package var endIndex: Int { entries.count + answered.count }

    /// The report of the link at `position`, made anew unless it was answered.
    package subscript(position: Int) -> PageLoadReport {
        guard position >= entries.count else {
            return .skipped(entries[position], reasons[position], at: skippedAt)
        }
        return answered[position - entries.count]
    }
}
