import Foundation

/// One main-frame navigation of a `WebView`: a load the caller asked for, a
/// reload, or a navigation the page started (a link, a form, `location = ...`).
///
/// Every navigation ends with exactly one terminal event: did finish, did
/// fail provisional navigation, or did fail.
public struct Navigation: Sendable, Hashable, CustomStringConvertible {
    /// Unique within the process, increasing in the order navigations start.
    public let id: UInt64
    /// The URL the navigation was asked to load (before any redirect).
    public let url: URL
    /// Who started it.
    public let origin: Origin

    /// Who started a navigation. The raw values are the spellings of navwatch's
    /// JSON output.
    public enum Origin: String, Sendable, Hashable {
        /// `WebView.load(_:)` or `loadHTML(_:baseURL:)`.
        case load
        /// `WebView.reload()`.
        case reload
        /// The page: a link, a form, a script or a meta refresh.
        case page
    }

    package init(id: UInt64, url: URL, origin: Origin) {
        self.id = id
        self.url = url
        self.origin = origin
    }

    /// `Navigation #id URL`.
    public var description: String { "Navigation #\(id) \(url.absoluteString)" }
}
