import Foundation
import NIOCore
import NIOPosix
import NavWatchTestSupport

/// A TCP connection driven by hand: bytes out, bytes in, end of input seen.
/// For speaking to the proxy exactly as a test wants, malformed or not.
final class RawClient {
    private let channel: any Channel
    private var inbound: AsyncStream<ByteBuffer>.AsyncIterator
    /// Bytes read and not yet returned.
    private var unread: [UInt8] = []

    private init(channel: any Channel, inbound: AsyncStream<ByteBuffer>) {
        self.channel = channel
        self.inbound = inbound.makeAsyncIterator()
    }

    static func connect(host: String = "127.0.0.1", port: Int) async throws -> RawClient {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundStreamHandler(continuation: continuation))
                }
            }
            .connect(host: host, port: port).get()
        return RawClient(channel: channel, inbound: stream)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Shuts this side's output (a half-close).
    func finishSending() async throws {
        try await channel.close(mode: .output)
    }

    /// Reads until the bytes read contain `marker`; returns them through the
    /// marker, keeping the rest for later. Throws at end of input without it.
    func read(through marker: String) async throws -> String {
        let needle = Array(marker.utf8)
        while true {
            if let range = firstRange(of: needle) {
                let text = String(decoding: unread[..<range.upperBound], as: UTF8.self)
                unread.removeFirst(range.upperBound)
                return text
            }
            guard var chunk = await inbound.next() else { throw RawClientError.endedBefore(marker) }
            unread += chunk.readBytes(length: chunk.readableBytes) ?? []
        }
    }

    /// Reads exactly `count` bytes.
    func read(count: Int) async throws -> [UInt8] {
        while unread.count < count {
            guard var chunk = await inbound.next() else { throw RawClientError.endedBefore("\(count) bytes") }
            unread += chunk.readBytes(length: chunk.readableBytes) ?? []
        }
        defer { unread.removeFirst(count) }
        return Array(unread.prefix(count))
    }

    /// Reads everything until the other side ends the connection.
    func readToEnd() async throws -> [UInt8] {
        while var chunk = await inbound.next() {
            unread += chunk.readBytes(length: chunk.readableBytes) ?? []
        }
        defer { unread = [] }
        return unread
    }

    func close() async {
        try? await channel.close()
    }

    private func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard unread.count >= needle.count else { return nil }
        for start in 0...(unread.count - needle.count) where unread[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}

@available(*, unavailable)
extension RawClient: Sendable {}

/// Hands what a connection reads to an async stream, which ends when the
/// input ends (EOF, a reset, an error, the connection closing).
private final class InboundStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let continuation: AsyncStream<ByteBuffer>.Continuation

    init(continuation: AsyncStream<ByteBuffer>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { continuation.finish() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish()
        context.close(promise: nil)
    }
}

enum RawClientError: Error {
    case endedBefore(String)
}

/// An HTTP response as read off the wire.
struct RawResponse {
    var statusLine: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Parses a whole response (head and everything after it as body).
    init(_ bytes: [UInt8]) throws {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= $0 + 4 && bytes[$0..<($0 + 4)].elementsEqual(separator) }) else {
            throw RawClientError.endedBefore("the end of a response head in \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
        var lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        statusLine = lines.removeFirst()
        headers = lines.map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = Array(bytes[(end + 4)...])
    }
}

extension RawClient {
    /// Sends `request` on a new connection to the proxy and reads the whole
    /// answer, up to the end of the connection.
    static func exchange(_ request: String, proxyPort: Int) async throws -> RawResponse {
        let client = try await RawClient.connect(port: proxyPort)
        try await client.send(request)
        let bytes = try await client.readToEnd()
        await client.close()
        return try RawResponse(bytes)
    }
}
