import Foundation

/// What a plain HTTP check of one URL found.
///
/// Exactly one of `status` and `errorKind` is set: a check either ends with
/// an answer that is not a redirect (its status), or with a failure (its kind
/// and a one-line message).
package struct HTTPCheckResult: Sendable, Equatable {
    /// One redirect hop: the URL that answered and its status.
    package struct Hop: Sendable, Equatable {
        package var url: URL
        package var status: Int
        package init(url: URL, status: Int) {
            self.url = url
            self.status = status
        }
    }

    /// The URL that was checked.
    package var url: URL
    /// The URL that gave the last answer (after redirects); on a failure, the
    /// URL that was being asked when it happened.
    package var finalURL: URL
    /// The last answer's status; nil when the check failed (no answer, or more
    /// redirects than `HTTPChecker.maximumRedirects`).
    package var status: Int?
    /// Every redirect answer received, in order (the hop's URL and its 3xx status).
    package var redirects: [Hop] = []
    /// The method whose answer counts: `HEAD`, or `GET` when HEAD was refused.
    package var method: String
    /// The last answer's MIME type (without parameters), lower-cased.
    package var mimeType: String?
    /// Seconds the server asked to wait (`Retry-After` of the last answer, as
    /// delta-seconds or an HTTP date); never negative.
    package var retryAfter: Double?
    /// Why the check failed: `dns`, `connection-refused`, `connection-reset`,
    /// `tls`, `timeout`, `too-many-redirects`, `cancelled` (the calling task
    /// was cancelled) or `other`.
    package var errorKind: HTTPFailureKind?
    /// The failure in one human-readable line.
    package var errorMessage: String?

    package init(url: URL, finalURL: URL, status: Int?, method: String) {
        self.url = url
        self.finalURL = finalURL
        self.status = status
        self.method = method
    }
}
