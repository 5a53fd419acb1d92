import Foundation

/// One step of one subresource (or of the main resource) of the page.
/// A resource's events may come after its navigation has finished.
public enum ResourceEvent: Sendable, Hashable {
    /// The request was made; `headers` are the request's as WebKit reports
    /// them when it starts (the network layer adds some later, such as
    /// `Host`, `Cookie` and `Accept-Encoding`).
    case started(id: UInt64, url: URL, method: String?, isMainResource: Bool, headers: [HTTPHeader])
    /// The server answered with a redirect (`status`, and that answer's `headers`) to `to`.
    case redirected(id: UInt64, to: URL, status: Int, headers: [HTTPHeader])
    /// The response arrived in full; `status` 0 when there was none.
    case finished(id: UInt64, url: URL, status: Int, mimeType: String?, headers: [HTTPHeader])
    /// The request failed. WebKit reports `finished` after it too.
    case failed(id: UInt64, url: URL, error: NavigationError)

    /// The resource this event belongs to: a number the view gives each
    /// resource when it starts, the same in every event of that resource and
    /// never given to another resource of the view.
    public var id: UInt64 {
        switch self {
        case .started(let id, _, _, _, _), .redirected(let id, _, _, _), .finished(let id, _, _, _, _),
             .failed(let id, _, _):
            return id
        }
    }
}

/// A change of one of the view's observable properties.
public enum WebViewPropertyChange: Sendable, Hashable {
    /// The document's title; nil when it has none.
    case title(String?)
    /// The URL shown, same-document changes included.
    case url(URL?)
    /// Whether a load is in progress.
    case isLoading(Bool)
    /// How far the load has got, from 0.0 to 1.0.
    case estimatedProgress(Double)
    /// `WebView.setUserAgent(_:)`; nil is WebKit's own.
    case userAgent(String?)
    /// `WebView.setJavaScriptEnabled(_:)`.
    case javaScriptEnabled(Bool)
}
