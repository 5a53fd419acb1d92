import Foundation
import NavWatch

/// What a plain HTTP check of one URL found.
public struct HTTPCheckResult: Sendable, Equatable {
    /// One redirect hop: the URL that answered and its status.
    public struct Hop: Sendable, Equatable {
        public var url: URL
        public var status: Int
        public init(url: URL, status: Int) {
            self.url = url
            self.status = status
        }
    }

    /// The URL that was checked.
    public var url: URL
    /// The URL that gave the last answer (after redirects).
    public var finalURL: URL
    /// The last answer's status; nil when no answer came.
    public var status: Int?
    /// The redirect hops before the last answer, in order.
    public var redirects: [Hop] = []
    /// The method whose answer counts: `HEAD`, or `GET` when HEAD was refused.
    public var method: String
    /// The last answer's MIME type (without parameters), lower-cased.
    public var mimeType: String?
    /// Seconds the server asked to wait (`Retry-After`, as seconds or an HTTP date).
    public var retryAfter: Double?
    /// Why no answer came: `dns`, `connection-refused`, `connection-reset`, `tls`,
    /// `timeout`, `too-many-redirects` or `other`.
    public var errorKind: NavigationError.Kind?
    public var errorMessage: String?

    public init(url: URL, finalURL: URL, status: Int?, method: String) {
        self.url = url
        self.finalURL = finalURL
        self.status = status
        self.method = method
    }
}

/// Plain HTTP requests for what the crawler checks without a web view.
/// Placeholder: the real client replaces this file.
public final class HTTPChecker: Sendable {
    public init(userAgent: String, timeout: Duration, ignoreTLSErrors: Bool = false) {}

    /// Releases the client's connections; call once, before the last reference goes away.
    public func shutdown() async {}

    /// Checks `url`: HEAD, then GET when HEAD is refused; follows redirects.
    public func check(_ url: URL) async -> HTTPCheckResult {
        HTTPCheckResult(url: url, finalURL: url, status: nil, method: "HEAD")
    }

    /// GETs `url`'s body (at most `maxBytes`); nil status when no answer came.
    public func fetch(_ url: URL, maxBytes: Int = 10 << 20) async -> (status: Int?, body: Data) {
        (nil, Data())
    }
}
