import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Serves one connection of a router's proxy: reads each request whole,
/// asks the router for the reply and writes it, one request at a time.
/// `CONNECT host:port` is answered `200` and the connection goes on in TLS
/// with the router's certificate for the host, its requests read the same
/// way. A request that asks for a protocol upgrade (a WebSocket) is
/// answered `501`: routes carry HTTP only.
///
/// Lives on the connection's event loop.
final class RouteConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let decoderName = "route-decoder", encoderName = "route-encoder", handlerName = "route-handler"

    private let holder: RouterHolder
    /// `https://host[:port]` inside a tunnel; nil on the plain connection, whose requests name their URL.
    private let origin: String?
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?

    private init(holder: RouterHolder, origin: String?) {
        self.holder = holder
        self.origin = origin
    }

    /// Adds the HTTP/1.1 server handlers and a route handler to `pipeline`.
    static func configure(_ pipeline: ChannelPipeline.SynchronousOperations, holder: RouterHolder, origin: String?) throws {
        try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)), name: decoderName)
        try pipeline.addHandler(HTTPResponseEncoder(), name: encoderName)
        try pipeline.addHandler(RouteConnectionHandler(holder: holder, origin: origin), name: handlerName)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
        case .body(var part):
            if body == nil { body = part } else { body?.writeBuffer(&part) }
        case .end:
            guard let head else { return }
            self.head = nil
            if head.method == .CONNECT {
                tunnel(to: head.uri, context: context)
            } else if head.headers.contains(name: "upgrade") {
                respond(.respond(status: 501, headers: [("Content-Type", "text/plain")],
                                 body: ByteBuffer(string: "navwatch routes carry HTTP only, not protocol upgrades\n")),
                        head: head, context: context)
            } else {
                reply(to: head, body: body.map { Data($0.readableBytesView) }, context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Requests

    private func reply(to head: HTTPRequestHead, body: Data?, context: ChannelHandlerContext) {
        let target = origin.map { $0 + head.uri } ?? head.uri
        guard let router = holder.router, let url = URL(string: target), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else {
            return respond(.fail, head: head, context: context)
        }
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let name = name.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let request = RouteRequest(url: url, method: head.method.rawValue, headers: headers, postData: body)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // Started on this thread: a handler that answers without suspending
        // (most do) is answered here, with no thread hop either way.
        Task.immediate {
            let reply = await router.reply(to: request)
            if eventLoop.inEventLoop {
                let (handler, context) = bound.value
                handler.respond(reply, head: head, context: context)
            } else {
                eventLoop.execute {
                    let (handler, context) = bound.value
                    handler.respond(reply, head: head, context: context)
                }
            }
        }
    }

    private func respond(_ reply: Router.Reply, head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard case .respond(let status, let fields, let body) = reply else {
            // Past the encoder, which writes responses only.
            guard let encoder = try? context.pipeline.syncOperations.context(name: Self.encoderName) else {
                return context.close(promise: nil)
            }
            let channel = context.channel
            encoder.writeAndFlush(NIOAny(ByteBuffer(string: "NAVWATCH-ROUTE-FAILED\r\n\r\n"))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        var headers = HTTPHeaders(fields)
        let bodiless = head.method == .HEAD || status == 204 || status == 304 || (100..<200).contains(status)
        if !bodiless { headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes)) }
        if !head.isKeepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status),
                                                             headers: headers))), promise: nil)
        if !bodiless, body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    // MARK: Tunnels

    /// Answers `CONNECT authority` and goes on in TLS as the authority's host.
    private func tunnel(to authority: String, context: ChannelHandlerContext) {
        guard origin == nil, let router = holder.router, let (host, port) = Self.split(authority) else {
            return context.close(promise: nil)
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: RouteCertificates.Identity.self)
        promise.completeWithTask { try await router.identity(forTunnelTo: host) }
        promise.futureResult.whenComplete { result in
            let (handler, context) = bound.value
            guard case .success(let identity) = result else { return context.close(promise: nil) }
            let origin = "https://" + (host.contains(":") ? "[\(host)]" : host) + (port == 443 ? "" : ":\(port)")
            handler.startTLS(identity, origin: origin, context: context)
        }
    }

    /// Writes `200` to the CONNECT, then swaps this connection's HTTP handlers for TLS and new ones.
    private func startTLS(_ identity: RouteCertificates.Identity, origin: String, context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: .ok)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let holder = holder
        let pipeline = context.pipeline
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            do {
                let operations = pipeline.syncOperations
                operations.removeHandler(name: Self.decoderName).whenFailure { _ in channel.close(promise: nil) }
                operations.removeHandler(name: Self.encoderName).whenFailure { _ in channel.close(promise: nil) }
                operations.removeHandler(name: Self.handlerName).whenFailure { _ in channel.close(promise: nil) }
                try operations.addHandler(NIOSSLServerHandler(context: identity.context))
                try Self.configure(operations, holder: holder, origin: origin)
            } catch {
                channel.close(promise: nil)
            }
        }
    }

    /// `host:port` (`[v6]:port` too) as the host (without brackets) and the port.
    static func split(_ authority: String) -> (String, Int)? {
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
