import Foundation

/// A document fetched with `HTTPChecker.document`: its final answer, how it
/// got there and when, or why no answer came.
///
/// Either `status` is set (an answer that is not a redirect, its body read
/// to its end or to the limit) or `errorKind` is (no complete answer).
package struct HTTPDocument: Sendable {
    /// The URL asked for.
    package var url: URL
    /// The URL of the last answer (after redirects); on a failure, the URL
    /// being asked when it happened.
    package var finalURL: URL
    /// Every redirect answer, in order.
    package var redirects: [HTTPCheckResult.Hop] = []
    /// The final answer's status; nil when none came.
    package var status: Int?
    /// The final answer's MIME type, lower-cased, without parameters.
    package var mimeType: String?
    /// The `charset` of its `Content-Type`, lower-cased.
    package var charset: String?
    /// Seconds its `Retry-After` asked to wait.
    package var retryAfter: Double?
    /// The body, gzip decoded, at most the `maxBytes` asked for.
    package var body = Data()
    /// Whether the body was longer than `maxBytes` (only that much was read).
    package var truncated = false
    /// Bytes of the body as they crossed the network (before gzip decoding).
    package var transferBytes = 0
    /// From the first request to the final answer's head.
    package var responseStart: Duration?
    /// From the first request to the end of the body.
    package var responseEnd: Duration?
    var failure: HTTPFailure?

    /// Why no answer came: `dns`, `connection-refused`, `timeout`, ...
    package var errorKind: HTTPFailureKind? { failure?.kind }
    /// The failure in one line.
    package var errorMessage: String? { failure?.message }

    init(url: URL, finalURL: URL) {
        self.url = url
        self.finalURL = finalURL
    }
}
