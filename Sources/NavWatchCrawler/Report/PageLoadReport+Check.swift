import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP

extension PageLoadReport {
    /// Fills the report from a plain HTTP check of a link outside the scope or a resource:
    /// `checked_with` and the answer (`recordAnswer`), the guard's when
    /// `guardVerdict` (for the check's final URL) says so.
    ///
    /// The URL, depth, parent, attempts and start time are the caller's.
    package mutating func record(_ check: HTTPCheckResult, guardVerdict: GuardVerdict? = nil) {
        checkedWith = check.method == CheckMethod.get.rawValue ? .get : .head
        recordAnswer(url: check.url, status: check.status, mime: check.mimeType, redirects: check.redirects,
                     errorKind: check.errorKind, errorMessage: check.errorMessage,
                     answeredFrom: check.finalURL != check.url ? check.finalURL : nil,
                     guardAnswer: GuardAnswer(guardVerdict, status: check.status, errorKind: nil, viaTunnel: true),
                     asked: check.finalURL)
    }

    /// A plain HTTP request's answer to `url`: its redirect hops, and
    /// either the guard's answer (`guardAnswer`, to the request for `asked`,
    /// the last hop) or the server's: its status and MIME type, the outcome
    /// (`outcome(ofStatus:)`), and without an answer `timeout` or `failed`
    /// with the error (domain `navwatch-http`), or `blocked` (`non-http`)
    /// after a redirect to a scheme other than http and https. `answeredFrom` is the final
    /// URL to report, when there is one worth naming.
    mutating func recordAnswer(url: URL, status: Int?, mime: String?, redirects: [HTTPCheckResult.Hop],
                               errorKind: HTTPFailureKind?, errorMessage: String?, answeredFrom: URL?,
                               guardAnswer: GuardAnswer?, asked: URL) {
        self.redirects = redirects.map { .init(url: $0.url.absoluteString, status: $0.status) }
        if let guardAnswer {
            record(guardAnswer, at: asked, answeredFrom: answeredFrom)
            return
        }
        self.status = status
        self.mime = mime
        finalURL = answeredFrom.map(Self.canonical)
        if let status {
            outcome = Self.outcome(ofStatus: status)
        } else if errorKind == .policy {
            // A redirect to a scheme navwatch does not fetch, as a rendered page's.
            outcome = .blocked
            skipReason = .nonHTTP
            finalURL = nil
            error = .init(NavigationError(kind: .policy, domain: "navwatch-http", code: 0,
                                          message: errorMessage ?? "not http or https", failingURL: url))
        } else {
            let kind = NavigationError.Kind(rawValue: (errorKind ?? .other).rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            error = .init(NavigationError(kind: kind, domain: "navwatch-http", code: 0,
                                          message: errorMessage ?? kind.rawValue, failingURL: url))
        }
    }
}
