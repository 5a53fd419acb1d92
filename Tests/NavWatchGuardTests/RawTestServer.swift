import NIOCore
import NIOPosix
import NavWatchTestSupport
import Synchronization

/// A tiny TCP server for what LoopbackServer cannot show: every connection
/// counted, the exact bytes of every request, WebSocket-style upgrades.
final class RawTestServer: Sendable {
    enum Behaviour: Sendable {
        /// Echoes every byte at once, from the first.
        case echo
        /// Reads a head and its `Content-Length` body, then answers 200 with
        /// exactly the bytes received as the body, and closes.
        case mirrorRequest
        /// Reads a head, answers `101 Switching Protocols`, then echoes.
        case upgradeThenEcho
        /// Answers one request after another on a connection, each by its path:
        /// `/length` (`Content-Length`), `/chunked` (chunks and a trailer),
        /// `/until-close` (no length, then closes), anything else 404 with a length.
        case keepAlive
    }

    let port: Int
    private let channel: any Channel
    private let state: RawServerState

    static func start(host: String = "127.0.0.1", _ behaviour: Behaviour) async throws -> RawTestServer {
        let state = RawServerState()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                state.connected()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawServerHandler(behaviour: behaviour, state: state))
                }
            }
            .bind(host: host, port: 0).get()
        return RawTestServer(channel: channel, state: state)
    }

    private init(channel: any Channel, state: RawServerState) {
        self.channel = channel
        self.state = state
        self.port = channel.localAddress?.port ?? 0
    }

    /// How many connections were accepted.
    var connectionCount: Int { state.connections }
    /// The request heads read (upgrade and mirror behaviours), in order.
    var heads: [String] { state.heads }

    func shutdown() async {
        try? await channel.close()
    }
}

private final class RawServerState: Sendable {
    private let values = Mutex<(connections: Int, heads: [String])>((0, []))
    func connected() { values.withLock { $0.connections += 1 } }
    func read(head: String) { values.withLock { $0.heads.append(head) } }
    var connections: Int { values.withLock { $0.connections } }
    var heads: [String] { values.withLock { $0.heads } }
}

private final class RawServerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let behaviour: RawTestServer.Behaviour
    private let state: RawServerState
    private var received: [UInt8] = []
    private var upgraded = false

    init(behaviour: RawTestServer.Behaviour, state: RawServerState) {
        self.behaviour = behaviour
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch behaviour {
        case .echo:
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        case .upgradeThenEcho where upgraded:
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        case .keepAlive:
            received += buffer.readableBytesView
            while let end = headEnd() {
                let head = String(decoding: received[..<end], as: UTF8.self)
                state.read(head: head)
                received.removeFirst(end + 4)
                let target = head.split(separator: " ").dropFirst().first ?? ""
                let path = target.split(separator: "?").first.map(String.init) ?? ""
                let answer = Self.keepAliveAnswers[path] ?? Self.keepAliveAnswers["404"]!
                let closes = path == "/until-close"
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head.hasPrefix("HEAD ") ? String(answer.prefix { $0 != "!" }) : answer.filter { $0 != "!" })))
                    .whenComplete { _ in if closes { channel.close(promise: nil) } }
                if closes { return }
            }
        case .upgradeThenEcho:
            received += buffer.readableBytesView
            guard let end = headEnd() else { return }
            state.read(head: String(decoding: received[..<end], as: UTF8.self))
            upgraded = true
            var answer = ByteBuffer(string: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
            answer.writeBytes(received[(end + 4)...])
            context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
        case .mirrorRequest:
            received += buffer.readableBytesView
            guard let end = headEnd() else { return }
            let head = String(decoding: received[..<end], as: UTF8.self)
            let length = head.split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingPrefix(" ")) } ?? 0
            guard received.count >= end + 4 + length else { return }
            state.read(head: head)
            var answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(received.count)\r\nConnection: close\r\n\r\n")
            answer.writeBytes(received)
            received = []
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            context.close(mode: .output, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// What `.keepAlive` answers, by path ("!" marks where a HEAD's answer ends).
    static let keepAliveAnswers = [
        "/length": "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n!length",
        "/chunked": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n!4\r\nchun\r\n3;x=y\r\nked\r\n0\r\nX-Done: 1\r\n\r\n",
        "/until-close": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n!until close",
        "404": "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n!not found",
    ]

    private func headEnd() -> Int? {
        guard received.count >= 4 else { return nil }
        return (0...(received.count - 4)).first {
            received[$0] == 13 && received[$0 + 1] == 10 && received[$0 + 2] == 13 && received[$0 + 3] == 10
        }
    }
}
