import Foundation

/// What answers the requests a route matched (`WebView.route(_:_:)`). It
/// starts on the thread of the view's proxy and runs there until it first
/// suspends, so that an answer made at once costs no thread hop: await
/// rather than block in it.
public typealias RouteHandler = nonisolated(nonsending) @Sendable (RouteRequest) async throws -> RouteAction

/// What a route does with a request it matched (`WebView.route(_:_:)`), as
/// Playwright's `route.fulfill`, `route.abort` and `route.continue`.
public enum RouteAction: Sendable, Equatable {
    /// Answers the request with this response; nothing reaches the network.
    /// `Content-Length` is set from `body`. A status outside
    /// `fulfilledStatuses` fails the request, as `abort()` does, and is an
    /// issue of the test that set the route.
    case fulfill(status: Int = 200, headers: [String: String] = [:], body: Data = Data())
    /// Fails the request as the network would (the connection closes
    /// without an answer): a `fetch` rejects, an image fires `error`, a
    /// page load fails. `reason` is what the trace records.
    case abort(AbortReason = .failed)
    /// Sends the request on to its server, changed by `overrides`, and
    /// gives the page the server's response as it came.
    case `continue`(RouteOverrides = RouteOverrides())

    /// The statuses `fulfill` answers with: final HTTP statuses, 200 to 599.
    public static let fulfilledStatuses = 200...599

    /// Answers with `body` as text of `contentType` (`text/html`, `application/json`, ...).
    public static func fulfill(status: Int = 200, contentType: String, body: String) -> RouteAction {
        .fulfill(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    /// Why a request was aborted, as Playwright names network errors. The
    /// page sees the same failure for each; the trace and the handler's
    /// own records keep which.
    public enum AbortReason: String, Sendable, Equatable, CaseIterable {
        /// An operation was aborted.
        case aborted
        /// Permission to reach the resource was denied.
        case accessDenied = "accessdenied"
        /// The address cannot be reached.
        case addressUnreachable = "addressunreachable"
        /// The client blocked the request.
        case blockedByClient = "blockedbyclient"
        /// The connection was aborted.
        case connectionAborted = "connectionaborted"
        /// The connection was closed.
        case connectionClosed = "connectionclosed"
        /// The connection could not be made.
        case connectionFailed = "connectionfailed"
        /// The server refused the connection.
        case connectionRefused = "connectionrefused"
        /// The connection was reset.
        case connectionReset = "connectionreset"
        /// There is no network.
        case internetDisconnected = "internetdisconnected"
        /// The host name could not be resolved.
        case nameNotResolved = "namenotresolved"
        /// The request took too long.
        case timedOut = "timedout"
        /// Any other failure.
        case failed
    }
}

/// What `RouteAction.continue` changes in a request before sending it on; nil keeps the request's own.
public struct RouteOverrides: Sendable, Equatable {
    /// Another URL of the same scheme: the page still sees its own.
    public var url: URL?
    /// Another HTTP method.
    public var method: String?
    /// Header fields to set (replacing those of the same name, letter case
    /// aside); the others are kept.
    public var headers: [String: String]?
    /// Another body.
    public var postData: Data?

    /// Overrides of the given parts of a request.
    public init(url: URL? = nil, method: String? = nil, headers: [String: String]? = nil, postData: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.postData = postData
    }
}
