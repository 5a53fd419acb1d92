import Foundation

/// Why a `WebView` call was refused.
public enum WebViewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The view was closed; create a new one.
    case closed
    /// The URL cannot be loaded (not absolute, or a scheme WebKit does not load).
    case unsupportedURL(String)
    /// A screenshot could not be taken or written.
    case screenshotFailed(String)
    /// A setting of the view's `WebViewConfiguration` has a value out of its
    /// range; the text names the setting and the value.
    case invalidConfiguration(String)
    /// The view's cookies or storage state could not be read, changed or
    /// written; the text says which and why.
    case storageFailed(String)

    /// What went wrong, in one line.
    public var description: String {
        switch self {
        case .closed: return "the web view is closed"
        case .unsupportedURL(let url): return "cannot load \(url): only http, https, file, data and about URLs can be loaded"
        case .screenshotFailed(let reason): return "cannot take a screenshot: \(reason)"
        case .invalidConfiguration(let problem): return problem
        case .storageFailed(let problem): return problem
        }
    }
}
