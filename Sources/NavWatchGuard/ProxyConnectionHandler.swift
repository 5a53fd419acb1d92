import Foundation
import NIOCore
import NIOPosix

/// Serves one client connection of the guard: reads a request head,
/// resolves and checks its target, then either answers an error and closes,
/// or reaches the checked address and:
/// - for a plain-HTTP/1.1 request of known length (no upgrade, no
///   `Transfer-Encoding`), forwards the request and relays the response
///   (`OriginRelayHandler`); when the response ends (`ResponseFramer`) and
///   both sides allow it, the next request head is read and checked like
///   the first, and goes over the same origin connection when it was
///   checked to the same address;
/// - for a tunnel, an upgrade or any other request, splices the two
///   connections (a `ByteSpliceHandler` on each side); a plain-HTTP
///   request then carries `Connection: close` and ends the client's
///   connection when the origin is done.
///
/// Lives on the client channel's event loop; the origin channel is made on
/// the same loop, so every callback here runs there.
final class ProxyConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The largest request head served; a larger one is answered with 431.
    static let maximumHeadSize = 64 * 1024

    private enum State {
        /// Waiting for the end of the head; what came so far.
        case readingHead(ByteBuffer?)
        /// Resolving and connecting; the bytes that came after the head.
        case connecting(ProxyRequestHead, pending: ByteBuffer?)
        /// A request that may share its connections is forwarded and its response relayed.
        case exchanging(Exchange)
        /// Bytes go through the splice handler after this one.
        case splicing
        /// An error answer went out; what the client still sends is dropped.
        case answered
        case closed
    }

    /// One plain-HTTP request and its response under way.
    private struct Exchange {
        var origin: any Channel
        var relay: OriginRelayHandler
        /// Request body bytes still to forward.
        var bodyRemaining: Int
        /// What the client sent after this request: the next one.
        var next: ByteBuffer?
        /// The client has shut its side.
        var clientDone = false
    }

    private var state = State.readingHead(nil)
    /// The origin connection of the last exchange, kept for the next request to the same checked address.
    private var idle: (channel: any Channel, relay: OriginRelayHandler)?
    private var timer: Scheduled<Void>?
    private let settings: GuardSettings
    /// With a link: what is written to the client, held back as the link would.
    private let shaper: LinkShapingHandler?

    init(settings: GuardSettings, shaper: LinkShapingHandler?) {
        self.settings = settings
        self.shaper = shaper
    }

    func handlerAdded(context: ChannelHandlerContext) {
        startHeadTimer(context: context)
    }

    /// A client must send a whole head within `headTimeout` of connecting or of its last response.
    private func startHeadTimer(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: settings.headTimeout) {
            if case .readingHead = self.state {
                self.state = .closed
                context.close(promise: nil)
            }
        }
    }

    /// The head timer, from when the response written to the client has
    /// been sent: with a link, it may be held for a while yet.
    private func startHeadTimerAfterPendingWrites(context: ChannelHandlerContext) {
        guard shaper != nil else { return startHeadTimer(context: context) }
        timer?.cancel()
        timer = nil
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            if case .readingHead = self.state { self.startHeadTimer(context: context) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .readingHead(let soFar):
            var buffer = soFar ?? context.channel.allocator.buffer(capacity: 1024)
            var incoming = unwrapInboundIn(data)
            buffer.writeBuffer(&incoming)
            readHead(from: buffer, context: context)
        case .connecting(let head, let pending):
            var buffer = pending ?? context.channel.allocator.buffer(capacity: 1024)
            var incoming = unwrapInboundIn(data)
            buffer.writeBuffer(&incoming)
            state = .connecting(head, pending: buffer)
        case .exchanging:
            forwardRequestBytes(unwrapInboundIn(data), context: context)
        case .splicing:
            context.fireChannelRead(data)
        case .answered, .closed:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if case .exchanging(let exchange) = state { exchange.origin.flush() }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if case .exchanging(let exchange) = state, context.channel.isWritable {
            exchange.origin.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            switch state {
            case .readingHead, .answered:
                // A client that stops sending before a whole head, or after
                // its error answer, gets nothing more (once what it was
                // written is sent: with a link, it may be held still).
                closeAfterPendingWrites(context: context)
            case .exchanging(var exchange):
                if exchange.bodyRemaining > 0 {
                    // The request was cut short: nothing it gets could be right.
                    state = .closed
                    context.close(promise: nil)
                } else {
                    // The response still comes; then the connection ends.
                    exchange.clientDone = true
                    state = .exchanging(exchange)
                }
            case .connecting, .splicing, .closed:
                break
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if case .exchanging(let exchange) = state { exchange.origin.close(promise: nil) }
        idle?.channel.close(promise: nil)
        idle = nil
        if case .splicing = state {} else { state = .closed }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .splicing = state {
            context.fireErrorCaught(error)
        } else {
            state = .closed
            context.close(promise: nil)
        }
    }

    // MARK: - The head

    private func readHead(from buffer: ByteBuffer, context: ChannelHandlerContext) {
        // The length of the head before its empty line.
        guard let headLength = buffer.withUnsafeReadableBytes({ HTTPText.endOfHead(in: $0) }) else {
            if buffer.readableBytes >= Self.maximumHeadSize {
                answer(status: "431 Request Header Fields Too Large", body: "navwatch: the request head is larger than 64 KiB",
                       context: context)
            } else {
                state = .readingHead(buffer)
            }
            return
        }
        guard headLength + 4 <= Self.maximumHeadSize else {
            answer(status: "431 Request Header Fields Too Large", body: "navwatch: the request head is larger than 64 KiB",
                   context: context)
            return
        }
        timer?.cancel()
        timer = nil
        var rest = buffer
        let headBytes = rest.readableBytesView.prefix(headLength)
        rest.moveReaderIndex(forwardBy: headLength + 4)
        let head: ProxyRequestHead
        do {
            head = try ProxyRequestHead.parse(headBytes)
        } catch {
            answer(status: "400 Bad Request", body: "navwatch: \(error.reason)", context: context)
            return
        }
        // Nothing more is read until the target is connected: the bytes
        // after the head wait in `pending`, the rest in the socket.
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        state = .connecting(head, pending: rest.readableBytes > 0 ? rest : nil)
        resolve(head, context: context)
    }

    // MARK: - Resolving and checking

    private func resolve(_ head: ProxyRequestHead, context: ChannelHandlerContext) {
        let subject = Subject(head)
        if let literal = HostName.ipAddress(subject.host, port: subject.port) {
            check([literal], subject: subject, context: context)
            return
        }
        let name = head.target.host
        let port = subject.port
        settings.resolverPool.runIfActive(eventLoop: context.eventLoop) {
            try HostResolver.addresses(of: name, port: port)
        }.assumeIsolated().whenComplete { result in
            guard case .connecting = self.state else { return }
            switch result {
            case .success(let addresses):
                self.check(addresses, subject: subject, context: context)
            case .failure:
                self.fail(.dns, subject: subject, context: context)
            }
        }
    }

    private func check(_ addresses: [SocketAddress], subject: Subject, context: ChannelHandlerContext) {
        if settings.blocksPrivateAddresses, !settings.allowance.contains(subject.host) {
            for address in addresses {
                guard let kind = PrivateAddressKind.of(address) else { continue }
                let text = address.ipAddress ?? "\(address)"
                settings.log.record(.blocked(BlockedRequest(host: subject.host, port: subject.port, address: text, kind: kind,
                                                            url: subject.url, date: Date())), key: subject.key)
                answer(status: "403 Forbidden", headers: [("X-Navwatch-Blocked", "private-address")],
                       body: "navwatch blocked a request to \(subject.authority): it resolves to \(text), \(kind.withArticle) address",
                       context: context)
                return
            }
        }
        if let own = context.channel.localAddress, addresses.contains(where: { Self.isSameListener($0, own) }) {
            fail(.other, subject: subject, context: context)
            return
        }
        if case .connecting(let head, _) = state, let bodyLength = head.sharedConnectionBodyLength, let idle,
           idle.channel.isActive, let remote = idle.channel.remoteAddress, addresses.contains(remote) {
            // The origin connection of the last request, to an address this request was checked to.
            self.idle = nil
            exchange(over: idle.channel, relay: idle.relay, bodyLength: bodyLength, context: context)
            return
        }
        idle?.channel.close(promise: nil)
        idle = nil
        connect(addresses, index: 0, subject: subject, context: context)
    }

    /// Whether connecting to `address` would reach the guard itself.
    private static func isSameListener(_ address: SocketAddress, _ own: SocketAddress) -> Bool {
        guard address.port == own.port else { return false }
        return address.ipAddress == own.ipAddress || PrivateAddressKind.of(address) == .unspecified
    }

    // MARK: - Connecting and splicing

    /// Connects to `addresses[index]`, then to the next ones in turn while
    /// they fail. Each of them was checked: none is resolved again.
    private func connect(_ addresses: [SocketAddress], index: Int, subject: Subject, context: ChannelHandlerContext) {
        let link = settings.link
        let client = context.channel
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(settings.connectTimeout)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelInitializer { origin in
                origin.eventLoop.makeCompletedFuture {
                    guard let link else { return }
                    // What the client sends waits as the link would.
                    let shaper = LinkShapingHandler(link: link, direction: .up)
                    shaper.source = client
                    try origin.pipeline.syncOperations.addHandler(shaper)
                }
            }
            .connect(to: addresses[index])
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let origin):
                    self.shaper?.source = origin
                    if let link {
                        // A new connection costs a round trip before its first
                        // byte goes: for a tunnel, half comes with its answer.
                        let isTunnel = if case .connecting(let head, _) = self.state, case .tunnel = head.target { true } else { false }
                        let wait = isTunnel ? link.shape.oneWay : link.shape.roundTrip
                        context.eventLoop.assumeIsolated().scheduleTask(in: wait) { self.connected(origin, context: context) }
                    } else {
                        self.connected(origin, context: context)
                    }
                case .failure(let error):
                    guard case .connecting = self.state else { return }
                    if index + 1 < addresses.count {
                        self.connect(addresses, index: index + 1, subject: subject, context: context)
                    } else {
                        self.fail(ProxyFailure.Kind(connectError: error), subject: subject, context: context)
                    }
                }
            }
    }

    /// Starts the exchange, or the splice, over a new origin connection.
    private func connected(_ origin: any Channel, context: ChannelHandlerContext) {
        guard case .connecting(let head, _) = state, context.channel.isActive else {
            origin.close(promise: nil)
            return
        }
        guard let bodyLength = head.sharedConnectionBodyLength else {
            splice(origin, context: context)
            return
        }
        let relay = OriginRelayHandler(client: context.channel) { [unowned origin] event in
            self.originEvent(event, from: origin, context: context)
        }
        do {
            try origin.pipeline.syncOperations.addHandler(relay)
        } catch {
            origin.close(promise: nil)
            context.close(promise: nil)
            return
        }
        exchange(over: origin, relay: relay, bodyLength: bodyLength, context: context)
    }

    // MARK: - Requests that share connections

    /// Forwards the head (without `Connection: close`) and what came of the
    /// body, then relays the response.
    private func exchange(over origin: any Channel, relay: OriginRelayHandler, bodyLength: Int,
                          context: ChannelHandlerContext) {
        guard case .connecting(let head, let pending) = state else { return }
        guard origin.isActive else {
            context.close(promise: nil)
            return
        }
        relay.expectResponse(to: head.method)
        origin.write(ByteBuffer(bytes: head.originHead(closing: false)), promise: nil)
        state = .exchanging(Exchange(origin: origin, relay: relay, bodyRemaining: bodyLength))
        if let pending { forwardRequestBytes(pending, context: context) }
        origin.flush()
        origin.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    /// The request body goes to the origin; what follows it is kept for
    /// after the response (a client that sends more than a head's worth
    /// ahead is not read until then).
    private func forwardRequestBytes(_ incoming: ByteBuffer, context: ChannelHandlerContext) {
        guard case .exchanging(var exchange) = state else { return }
        var incoming = incoming
        let body = min(exchange.bodyRemaining, incoming.readableBytes)
        if body > 0, let slice = incoming.readSlice(length: body) {
            exchange.origin.write(slice, promise: nil)
            exchange.bodyRemaining -= body
        }
        if incoming.readableBytes > 0 {
            var next = exchange.next ?? context.channel.allocator.buffer(capacity: incoming.readableBytes)
            next.writeBuffer(&incoming)
            if next.readableBytes > Self.maximumHeadSize {
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
            exchange.next = next
        }
        state = .exchanging(exchange)
    }

    private func originEvent(_ event: OriginRelayHandler.Event, from origin: any Channel, context: ChannelHandlerContext) {
        if let idle, idle.channel === origin {
            // An idle connection the origin ended, or sent unasked-for bytes on.
            self.idle = nil
            return
        }
        guard case .exchanging(let exchange) = state, exchange.origin === origin else { return }
        switch event {
        case .responseEnded(let reusable):
            guard reusable, exchange.bodyRemaining == 0, !exchange.clientDone else {
                origin.close(promise: nil)
                closeAfterPendingWrites(context: context)
                return
            }
            idle = (origin, exchange.relay)
            state = .readingHead(nil)
            startHeadTimerAfterPendingWrites(context: context)
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            if let next = exchange.next { readHead(from: next, context: context) }
        case .originEnded:
            // The response ended with the connection, or was cut short: so does the client's connection.
            closeAfterPendingWrites(context: context)
        }
    }

    /// Closes the client connection once what was written to it is sent.
    private func closeAfterPendingWrites(context: ChannelHandlerContext) {
        state = .closed
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    // MARK: - Tunnels, upgrades and single requests

    private func splice(_ origin: any Channel, context: ChannelHandlerContext) {
        guard case .connecting(let head, let pending) = state, context.channel.isActive else {
            origin.close(promise: nil)
            return
        }
        state = .splicing
        let isTunnel = if case .tunnel = head.target { true } else { false }
        do {
            // A plain-HTTP connection carries one request: when the origin
            // is done, so is the client connection.
            try origin.pipeline.syncOperations.addHandler(ByteSpliceHandler(partner: context.channel,
                                                                            closesPartnerAtEnd: !isTunnel))
            try context.pipeline.syncOperations.addHandler(ByteSpliceHandler(partner: origin, closesPartnerAtEnd: false))
        } catch {
            origin.close(promise: nil)
            context.close(promise: nil)
            return
        }
        guard origin.isActive else {
            context.close(promise: nil)
            return
        }
        if isTunnel {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")),
                                  promise: nil)
        } else {
            origin.write(ByteBuffer(bytes: head.originHead()), promise: nil)
        }
        if let pending { origin.write(pending, promise: nil) }
        origin.flush()
        origin.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    // MARK: - Error answers

    private func fail(_ kind: ProxyFailure.Kind, subject: Subject, context: ChannelHandlerContext) {
        settings.log.record(.failed(ProxyFailure(host: subject.host, port: subject.port, url: subject.url, kind: kind,
                                                 date: Date())), key: subject.key)
        answer(status: "502 Bad Gateway", headers: [("X-Navwatch-Proxy-Error", kind.rawValue)],
               body: "navwatch could not reach \(subject.authority): \(kind)", context: context)
    }

    /// Answers `status` with a one-line plain-text `body` and ends the
    /// connection: the output is shut once the answer is sent; what the
    /// client still sends is read and dropped until it closes its side or
    /// `lingerTimeout` passes. (Closing with unread bytes would reset the
    /// connection and could destroy the answer before the client reads it.)
    private func answer(status: String, headers: [(String, String)] = [], body: String, context: ChannelHandlerContext) {
        state = .answered
        timer?.cancel()
        let bodyBytes = Array((body + "\n").utf8)
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count + bodyBytes.count)
        buffer.writeString(text)
        buffer.writeBytes(bodyBytes)
        let channel = context.channel
        // The linger starts once the answer is sent (with a link, it is held for a while).
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            guard case .answered = self.state else { return }
            self.timer = context.eventLoop.assumeIsolated().scheduleTask(in: self.settings.lingerTimeout) {
                context.close(promise: nil)
            }
        }
        channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }
}
