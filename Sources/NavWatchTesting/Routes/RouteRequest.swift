import Foundation

/// A request of a view that a route matched (`WebView.route(_:_:)`), as the
/// view's network process sent it.
public struct RouteRequest: Sendable {
    /// The URL asked for, `http` or `https`.
    public let url: URL
    /// The HTTP method: `GET`, `POST`, ...
    public let method: String
    /// The request's header fields, names in lower case; a field sent more
    /// than once has its values joined with `, `.
    public let headers: [String: String]
    /// The request's body; nil when it had none.
    public let postData: Data?

    /// A request of `method` for `url`.
    public init(url: URL, method: String = "GET", headers: [String: String] = [:], postData: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.postData = postData
    }
}
