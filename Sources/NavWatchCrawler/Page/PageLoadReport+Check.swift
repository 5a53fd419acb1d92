import Foundation
import NavWatch
import NavWatchHTTP

extension PageLoadReport {
    /// Fills the report from a plain HTTP check of a link outside the scope:
    /// `checked_with` and the answer (`recordAnswer`).
    ///
    /// The URL, depth, parent, attempts and start time are the caller's.
    package mutating func record(_ check: HTTPCheckResult) {
        checkedWith = check.method
        recordAnswer(url: check.url, status: check.status, mime: check.mimeType, redirects: check.redirects,
                     errorKind: check.errorKind, errorMessage: check.errorMessage)
        if check.finalURL != check.url { finalURL = Self.canonical(check.finalURL) }
    }

    /// A plain HTTP request's answer to `url`: its status, MIME type and
    /// redirect hops; the outcome `ok` below 400, `http-error`
    /// from 400, and without an answer `timeout` or `failed` with the error
    /// (domain `navwatch-http`).
    mutating func recordAnswer(url: URL, status: Int?, mime: String?, redirects: [HTTPCheckResult.Hop],
                               errorKind: HTTPFailureKind?, errorMessage: String?) {
        self.status = status
        self.mime = mime
        self.redirects = redirects.map { .init(url: $0.url.absoluteString, status: $0.status) }
        if let status {
            outcome = status >= 400 ? .httpError : .ok
        } else {
            let kind = NavigationError.Kind(rawValue: (errorKind ?? .other).rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            error = .init(NavigationError(kind: kind, domain: "navwatch-http", code: 0,
                                          message: errorMessage ?? kind.rawValue, failingURL: url))
        }
    }
}
