import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A small HTTP/1.1 server on loopback (127.0.0.1 unless told otherwise), plain or TLS, whose every answer
/// comes from a route closure. Built for the demo site, the examples and the
/// tests: it can also hang, answer late, or reset a connection after the
/// headers. Not a product: nothing outside this package links it.
package final class LoopbackServer: Sendable {
    package typealias Route = @Sendable (LoopbackRequest) -> LoopbackResponse

    /// A certificate chain and its private key, both PEM, for a TLS server.
    package struct TLSIdentity: Sendable {
        package var certificatePEM: String
        package var privateKeyPEM: String

        package init(certificatePEM: String, privateKeyPEM: String) {
            self.certificatePEM = certificatePEM
            self.privateKeyPEM = privateKeyPEM
        }
    }

    /// The port it listens on (chosen by the system).
    package let port: Int
    /// The address it listens on, as given to `start` (`127.0.0.1`, `127.0.0.2`, `::1`, ...).
    package let host: String
    package let isTLS: Bool
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Starts listening on a free port of `host` (an IPv4 or IPv6 address,
    /// without brackets): HTTPS with `tls`, HTTP without.
    package static func start(host: String = "127.0.0.1", tls: TLSIdentity? = nil,
                             route: @escaping Route) async throws -> LoopbackServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let sslContext = try tls.map { identity in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: [.certificate(NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem))],
                privateKey: .privateKey(NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))))
        }
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                log.connected()
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RouteHandler(route: route, log: log))
                }
            }
            .bind(host: host, port: 0).get()
        return LoopbackServer(channel: channel, group: group, host: host, tls: tls != nil, log: log)
    }

    private init(channel: any Channel, group: MultiThreadedEventLoopGroup, host: String, tls: Bool, log: RequestLog) {
        self.channel = channel
        self.group = group
        self.host = host
        self.port = channel.localAddress?.port ?? 0
        self.isTLS = tls
        self.log = log
    }

    private let log: RequestLog

    /// `http://HOST:PORT` (or https), the host bracketed when it is IPv6
    /// (`http://[::1]:PORT`).
    package var baseURL: URL {
        let authority = host.contains(":") ? "[\(host)]" : host
        return URL(string: "\(isTLS ? "https" : "http")://\(authority):\(port)")!
    }

    /// The absolute URL of `path` on this server.
    package func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }

    /// The request URIs received so far, in order.
    package var receivedRequests: [String] { log.all }

    /// The connections accepted so far.
    package var connectionCount: Int { log.connections }

    /// Stops listening and closes every connection.
    package func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// The URIs requested, shared by every connection's handler.
final class RequestLog: Sendable {
    private let entries = Mutex<[String]>([])
    private let accepted = Mutex(0)
    func append(_ uri: String) { entries.withLock { $0.append(uri) } }
    var all: [String] { entries.withLock { $0 } }
    func connected() { accepted.withLock { $0 += 1 } }
    var connections: Int { accepted.withLock { $0 } }
}

private final class RouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let route: LoopbackServer.Route
    private let log: RequestLog
    private var head: HTTPRequestHead?

    init(route: @escaping LoopbackServer.Route, log: RequestLog) {
        self.route = route
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            log.append(head.uri)
            let request = LoopbackRequest(method: head.method.rawValue, uri: head.uri,
                                          headers: head.headers.map { ($0.name, $0.value) })
            perform(route(request), keepAlive: head.isKeepAlive, context: context)
        }
    }

    private func perform(_ response: LoopbackResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        switch response {
        case .hang:
            break
        case .delayed(let delay, let next):
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay.components.seconds) * 1_000_000_000
                                                            + delay.components.attoseconds / 1_000_000_000)) {
                let (handler, context) = bound.value
                handler.perform(next, keepAlive: keepAlive, context: context)
            }
        case .stallAfterHeaders:
            let headers = HTTPHeaders([("Content-Type", "text/html"), ("Content-Length", "100000")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: 64)
            buffer.writeString("<html><head><title>stalled</title></head><body>")
            buffer.writeString(String(repeating: "<p>the rest of this page never arrives</p>\n", count: 200))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        case .resetAfterHeaders:
            var headers = HTTPHeaders([("Content-Type", "text/html"), ("Content-Length", "100000")])
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: 64)
            buffer.writeString("<html><head><title>partial</title></head><body>")
            buffer.writeString(String(repeating: "<p>partial content before the reset</p>\n", count: 200))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            let channel = context.channel
            context.eventLoop.scheduleTask(in: .milliseconds(300)) {
                // SO_LINGER with a zero timeout turns close() into a reset.
                guard let provider = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                    .whenComplete { _ in channel.close(promise: nil) }
            }
        case .endless(let start, let chunk):
            let headers = HTTPHeaders([("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: start)))), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: chunk)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            // At most a chunk a millisecond, each once the last one is written.
            // A write the socket takes at once completes at once: a next chunk
            // sent from its callback would go a frame deeper each time, until
            // the stack overflowed, and one queued as a task would run before
            // the loop looks at its sockets again. Either way the server would
            // answer no other connection meanwhile.
            @Sendable func writeNext() {
                let (handler, context) = bound.value
                context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(buffer)))).whenSuccess {
                    eventLoop.scheduleTask(in: .milliseconds(1)) { writeNext() }
                }
            }
            writeNext()
        case .respond(let status, let fields, let body):
            var headers = HTTPHeaders(fields)
            headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
