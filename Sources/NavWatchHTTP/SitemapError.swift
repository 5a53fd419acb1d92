import Foundation

/// Why a sitemap could not be read; its description is one line naming the URL.
package struct SitemapError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// The server answered with this status (not 2xx).
        case status(Int)
        /// No answer came: the failure's kind and message.
        case noAnswer(HTTPFailureKind, String)
        /// The content is not a sitemap: why, in a few words.
        case notASitemap(String)
    }

    /// The sitemap's URL; nil for a document parsed from data.
    package var url: URL?
    package var reason: Reason

    package init(url: URL?, reason: Reason) {
        self.url = url
        self.reason = reason
    }

    package var description: String {
        let subject = url.map { "the sitemap \($0.absoluteString)" } ?? "the document"
        switch reason {
        case .status(let status): return "\(subject) answered \(status)"
        case .noAnswer(let kind, let message): return "\(subject) did not answer (\(kind.rawValue)): \(message)"
        case .notASitemap(let why): return "\(subject) is not a sitemap: \(why)"
        }
    }
}
