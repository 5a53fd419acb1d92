import Foundation
import NIOCore
import NIOPosix

/// What every connection of one guard shares.
struct GuardSettings: Sendable {
    var allowance: HostAllowance
    var connectTimeout: TimeAmount
    var headTimeout: TimeAmount
    /// How long an error answer waits for the client to finish sending
    /// before the connection is closed regardless.
    var lingerTimeout: TimeAmount = .seconds(2)
    var resolverPool: NIOThreadPool
    var log: GuardLog
}

/// Serves one client connection of the guard: reads one request head,
/// resolves and checks its target, then either answers an error and closes,
/// or connects to the checked address and splices the two connections
/// (with a `ByteSpliceHandler` on each side).
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
        /// Bytes go through the splice handler after this one.
        case splicing
        /// An error answer went out; what the client still sends is dropped.
        case answered
        case closed
    }

    private var state = State.readingHead(nil)
    private var timer: Scheduled<Void>?
    private let settings: GuardSettings

    init(settings: GuardSettings) {
        self.settings = settings
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: settings.headTimeout) {
            if case .readingHead = self.state {
                self.state = .closed
                context.close(promise: nil)
            }
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
        case .splicing:
            context.fireChannelRead(data)
        case .answered, .closed:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            switch state {
            case .readingHead, .answered:
                // A client that stops sending before a whole head, or after
                // its error answer, gets nothing more.
                state = .closed
                context.close(promise: nil)
            case .connecting, .splicing, .closed:
                break
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
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
        guard let headLength = Self.headLength(in: buffer) else {
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

    /// The length of the head before its `\r\n\r\n`, or nil while it has not come.
    private static func headLength(in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4)
            where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            return nil
        }
    }

    // MARK: - Resolving and checking

    /// What a request is called in records and answers.
    private struct Subject {
        var host: String
        var port: Int
        var url: URL?
        var key: GuardRecordKey
        /// `host:port`, IPv6 in brackets.
        var authority: String { HostName.authority(host, port: port) }

        init(_ head: ProxyRequestHead) {
            host = HostName.normalized(head.target.host)
            port = head.target.port
            switch head.target {
            case .tunnel:
                url = nil
                key = .tunnel(host: host, port: port)
            case .http(_, _, _, let path):
                let scheme = head.rawTarget.lowercased().hasPrefix("ws://") ? "ws" : "http"
                let authority = host.contains(":") ? "[\(host)]" : host
                url = URL(string: "\(scheme)://\(authority)\(port == 80 ? "" : ":\(port)")\(path)")
                key = .http(host: host, port: port, path: path)
            }
        }
    }

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
        if !settings.allowance.contains(subject.host) {
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
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(settings.connectTimeout)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(to: addresses[index])
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let origin):
                    self.splice(origin, context: context)
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
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: settings.lingerTimeout) {
            context.close(promise: nil)
        }
    }
}
