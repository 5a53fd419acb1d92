import Foundation
import NavWatch

/// A rendered page's own request for one of its subresources, answered:
/// what the crawl reports for a resource the page embeds instead of asking
/// the site again (`PageLoadReport.CheckMethod.page`).
///
/// Only a plain answer counts: a GET (or a request of no method said) that
/// ended with a status, with no redirect and no error, and that the
/// private-address guard let through. Anything else (a redirect, a
/// failure, a request cut short when the page was left, the guard's
/// refusal) is checked with plain HTTP, as a page read from HTML has its
/// resources checked.
struct PageResourceAnswer: Sendable, Equatable {
    var status: Int
    var mime: String?

    /// The plain answers among `requests`, by the canonical URL asked for; the first for a URL asked twice.
    static func answers(to requests: [PageLoadState.Request],
                        blocked: (URL) -> Bool) -> [String: PageResourceAnswer] {
        var answers: [String: PageResourceAnswer] = [:]
        for request in requests where !request.isMainResource && request.redirects.isEmpty && request.error == nil
            && (request.method ?? "GET") == "GET" && !blocked(request.requestedURL) {
            guard let status = request.status, status > 0,
                  let key = URLCanonicalizer.canonical(request.requestedURL)?.absoluteString, answers[key] == nil else { continue }
            answers[key] = PageResourceAnswer(status: status, mime: request.mimeType)
        }
        return answers
    }

    /// The report of `entry` (a resource the page embeds) from this answer.
    func report(for entry: FrontierEntry, at date: Date) -> PageLoadReport {
        var report = PageLoadReport(entry, outcome: PageLoadReport.outcome(ofStatus: status), fetchedAt: date)
        report.status = status
        report.mime = mime
        report.checkedWith = .page
        return report
    }
}
