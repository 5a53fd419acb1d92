import Foundation
import NavWatch
import NavWatchHTTP

extension PageLoadReport {
    /// Fills the report from a plain HTTP check of a link outside the scope:
    /// `checked_with`, the final answer's status and MIME type, the redirect
    /// hops and the final URL; the outcome `ok` below 400, `http-error` from
    /// 400, and without an answer `timeout` or `failed` with the check's
    /// error (domain `navwatch-http`).
    ///
    /// The URL, depth, parent, attempts and start time are the caller's.
    package mutating func record(_ check: HTTPCheckResult) {
        checkedWith = check.method
        status = check.status
        mime = check.mimeType
        redirects = check.redirects.map { .init(url: $0.url.absoluteString, status: $0.status) }
        if check.finalURL != check.url {
            finalURL = URLCanonicalizer.canonical(check.finalURL)?.absoluteString ?? check.finalURL.absoluteString
        }
        if let status = check.status {
            outcome = status >= 400 ? .httpError : .ok
        } else {
            let kind = NavigationError.Kind(rawValue: (check.errorKind ?? .other).rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            error = .init(NavigationError(kind: kind, domain: "navwatch-http", code: 0,
                                          message: check.errorMessage ?? kind.rawValue, failingURL: check.url))
        }
    }
}
