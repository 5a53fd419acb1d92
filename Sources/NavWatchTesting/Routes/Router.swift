import AsyncHTTPClient
import Foundation
import NavWatch
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import WebKitThread

/// The routes of one view, and the proxy on 127.0.0.1 its requests (and
/// its popups') go through once it has had one (`WebView.route(_:_:)`).
///
/// - Each request is matched against the routes, the last one set first.
///   The first that matches is given it; a request no route matches goes on
///   unchanged. What a handler throws aborts its request and is told to
///   whoever set the route (an issue of that test).
/// - https is intercepted too: the proxy answers `CONNECT` with a
///   certificate of its own for the host, which the view is told to accept.
/// - What goes on to the network goes through the view's own
///   `networkProxy` when it has one (the private-address guard), and is
///   checked as the view checks certificates (`tlsErrors`).
/// - Lives as long as the view keeps it (`WebView.interception`): it stops
///   listening, and its routes' handlers stop being asked, once let go of.
final class Router: Sendable {
    /// A route: which URLs, what answers them, and where what its handler throws is told.
    private struct Route: Sendable {
        let pattern: RoutePattern
        let handler: RouteHandler
        let failures: AsyncStream<String>.Continuation
    }

    /// The proxy's address, for the view's network settings.
    let proxyURL: URL
    private let server: any Channel
    private let routes = Mutex<[Route]>([])
    private let certificates = RouteCertificates()
    /// Per host, telling the view to accept its certificate: every tunnel
    /// to the host waits for it, the first and those opened meanwhile alike.
    private let acceptances = Mutex<[String: Task<Void, any Error>]>([:])
    private let upstream: HTTPClient
    private let view: ViewReference

    /// The largest response body sent on from the network; a larger one fails its request.
    static let maximumBodySize = 256 << 20

    private init(server: any Channel, upstream: HTTPClient, view: ViewReference) {
        self.server = server
        self.upstream = upstream
        self.view = view
        proxyURL = URL(string: "http://127.0.0.1:\(server.localAddress?.port ?? 0)")!
    }

    /// Starts the proxy of `view`, which sends on what no route answers as its configuration says.
    @WebKitActor
    static func start(for view: WebView) async throws -> Router {
        var tls = TLSConfiguration.makeClientConfiguration()
        if view.configuration.tlsErrors == .ignore { tls.certificateVerification = .none }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(60)), decompression: .disabled)
        // A server that cannot be reached (or that the guard refuses) fails its request at once, as in the view.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let proxy = view.configuration.networkProxy, let host = proxy.host, let port = proxy.port {
            configuration.proxy = .server(host: host, port: port)
        }
        let upstream = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
                                  configuration: configuration)
        let reference = ViewReference(view)
        let holder = RouterHolder()
        do {
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try RouteConnectionHandler.configure(channel.pipeline.syncOperations, holder: holder, origin: nil)
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let router = Router(server: server, upstream: upstream, view: reference)
            holder.router = router
            return router
        } catch {
            try? await upstream.shutdown()
            throw error
        }
    }

    deinit {
        server.close(promise: nil)
        for route in routes.withLock({ $0 }) { route.failures.finish() }
        let upstream = upstream
        Task { try? await upstream.shutdown() }
    }

    // MARK: Routes

    /// Adds a route, asked before those added earlier; what `handler`
    /// throws goes to `failures`, as `route <pattern> threw for GET <url>: <error>`.
    func add(_ pattern: RoutePattern, handler: @escaping RouteHandler,
             failures: AsyncStream<String>.Continuation) {
        routes.withLock { $0.append(Route(pattern: pattern, handler: handler, failures: failures)) }
    }

    /// Removes the routes whose pattern is written `description` (all with
    /// nil); requests they were already given are still answered.
    func remove(_ description: String?) {
        let removed = routes.withLock { routes in
            let removed = routes.filter { description == nil || $0.pattern.description == description }
            routes.removeAll { description == nil || $0.pattern.description == description }
            return removed
        }
        for route in removed { route.failures.finish() }
    }

    // MARK: Answering

    /// What the proxy does with a request.
    enum Reply: Sendable {
        case respond(status: Int, headers: [(String, String)], body: ByteBuffer)
        /// Fail the request as a broken network would, and only once: WebKit
        /// sends a request again when its connection closes before an
        /// answer, but not after one it cannot read, so the proxy answers a
        /// line that is not HTTP and closes the connection.
        case fail
    }

    /// Matches `request` against the routes and answers it as the route
    /// says, or sends it on; on the caller's executor until something suspends.
    nonisolated(nonsending) func reply(to request: RouteRequest) async -> Reply {
        let url = request.url.absoluteString
        let route = routes.withLock { routes in routes.last { $0.pattern.matches(url) } }
        // A preflight is the network's own request, which the view does not report.
        if route != nil, let preflight = Self.preflightAnswer(to: request) { return preflight }
        if view.tracing.isRecordingNow {
            await view.markProxied(request, routed: route != nil)
        }
        guard let route else { return await forward(request, overrides: RouteOverrides()) }
        let action: RouteAction
        do {
            action = try await route.handler(request)
        } catch {
            route.failures.yield("route \(route.pattern) threw for \(request.method) \(url): \(error)")
            action = .abort(.failed)
        }
        switch action {
        case .fulfill(let status, _, _) where !RouteAction.fulfilledStatuses.contains(status):
            route.failures.yield("route \(route.pattern) fulfilled \(request.method) \(url) with status \(status), "
                + "which is not a final HTTP status (\(RouteAction.fulfilledStatuses.lowerBound) to \(RouteAction.fulfilledStatuses.upperBound))")
            return .fail
        case .fulfill(let status, let headers, let body):
            let fields = headers.filter { $0.key.lowercased() != "content-length" }.sorted { $0.key < $1.key }
            return .respond(status: status, headers: fields.map { ($0.key, $0.value) }, body: ByteBuffer(bytes: body))
        case .abort:
            return .fail
        case .continue(let overrides):
            return await forward(request, overrides: overrides)
        }
    }

    /// For a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`)
    /// of a request a route matches: `204` allowing what it asks, as
    /// Playwright answers it, so that the route gets the request itself.
    static func preflightAnswer(to request: RouteRequest) -> Reply? {
        guard request.method == "OPTIONS", let method = request.headers["access-control-request-method"] else { return nil }
        var headers = [("Access-Control-Allow-Origin", request.headers["origin"] ?? "*"),
                       ("Access-Control-Allow-Methods", method), ("Access-Control-Allow-Credentials", "true")]
        if let asked = request.headers["access-control-request-headers"] { headers.append(("Access-Control-Allow-Headers", asked)) }
        return .respond(status: 204, headers: headers, body: ByteBuffer())
    }

    /// The header fields a proxy never passes on (RFC 9110, 7.6.1).
    private static let hopByHop: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// Sends `request`, changed by `overrides`, to its server and returns its response as it came.
    private func forward(_ request: RouteRequest, overrides: RouteOverrides) async -> Reply {
        var outgoing = HTTPClientRequest(url: (overrides.url ?? request.url).absoluteString)
        outgoing.method = HTTPMethod(rawValue: overrides.method ?? request.method)
        var headers = request.headers.filter { !Self.hopByHop.contains($0.key) }
        for (name, value) in overrides.headers ?? [:] {
            headers = headers.filter { $0.key != name.lowercased() }
            headers[name.lowercased()] = value
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { outgoing.headers.add(name: name, value: value) }
        if let body = overrides.postData ?? request.postData { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await upstream.execute(outgoing, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: Self.maximumBodySize)
            let fields = response.headers.filter { !Self.hopByHop.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
            return .respond(status: Int(response.status.code), headers: fields, body: body)
        } catch {
            return .fail
        }
    }

    /// The certificate to show for a tunnel to `host`, which the view has been told to accept.
    func identity(forTunnelTo host: String) async throws -> RouteCertificates.Identity {
        let identity = try certificates.identity(for: host)
        let acceptance = acceptances.withLock { acceptances in
            if let started = acceptances[host] { return started }
            let view = view
            let started = Task { try await view.accept(identity.certificatePEM, for: host) }
            acceptances[host] = started
            return started
        }
        try await acceptance.value
        return identity
    }
}

/// The router, for the connections its proxy accepts: set once it is made
/// (before the first connection can come), weakly, so that the proxy does not keep it alive.
final class RouterHolder: Sendable {
    private let reference = Mutex<WeakRouter>(WeakRouter())

    var router: Router? {
        get { reference.withLock { $0.router } }
        set { reference.withLock { $0.router = newValue } }
    }

    private struct WeakRouter: @unchecked Sendable {
        weak var router: Router?
    }
}

/// A router's view, held weakly: the view holds its router.
@WebKitActor
final class ViewReference {
    private weak var view: WebView?
    /// The view's tracing, to ask from any thread whether it records.
    nonisolated let tracing: Tracing

    init(_ view: WebView) {
        self.view = view
        tracing = view.tracing
    }

    /// Tells the view's trace that its proxy saw `request`, and whether a route answered it.
    func markProxied(_ request: RouteRequest, routed: Bool) {
        view?.tracing.markProxied(method: request.method, url: request.url.absoluteString, routed: routed)
    }

    /// Makes the view accept `certificatePEM` for `host`.
    func accept(_ certificatePEM: String, for host: String) throws {
        guard let view else { throw WebViewError.closed }
        try view.allowCertificate(certificatePEM, for: host)
    }
}
