import NIOCore

/// The origin side of a plain-HTTP exchange that may carry more than one
/// request: forwards every byte the origin sends to the client unchanged,
/// and tells the client's handler when the response has ended
/// (`ResponseFramer`) or the origin has gone.
///
/// Both channels are on the same event loop. While the client cannot take
/// more, the origin is not read; the client's handler starts it again.
final class OriginRelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// What the client's handler hears.
    enum Event {
        /// The response has ended; `reusable` when both connections may carry another request.
        case responseEnded(reusable: Bool)
        /// The origin closed, reset or failed; `whileIdle` when no response was under way.
        case originEnded(whileIdle: Bool)
    }

    private let client: any Channel
    private let onEvent: (Event) -> Void
    private var framer: ResponseFramer?

    init(client: any Channel, onEvent: @escaping (Event) -> Void) {
        self.client = client
        self.onEvent = onEvent
    }

    /// Starts reading the response to a request with `method`.
    func expectResponse(to method: String) {
        framer = ResponseFramer(requestMethod: method)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard var current = framer else {
            // Bytes nobody asked for: this connection carries nothing more.
            context.close(promise: nil)
            return
        }
        let taken = buffer.withUnsafeReadableBytes { current.consume($0) }
        framer = current
        if taken < buffer.readableBytes {
            // More than the response: the connection is not reused.
            buffer = buffer.getSlice(at: buffer.readerIndex, length: taken) ?? buffer
            client.write(buffer, promise: nil)
            framer = nil
            onEvent(.responseEnded(reusable: false))
            context.close(promise: nil)
            return
        }
        client.write(buffer, promise: nil)
        if current.isComplete {
            framer = nil
            onEvent(.responseEnded(reusable: current.isReusable))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        client.flush()
        if !client.isWritable {
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The origin shut its side: it sends nothing more, and nothing more is asked of it.
        if case .some(.inputClosed) = event as? ChannelEvent { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let whileIdle = framer == nil
        framer = nil
        onEvent(.originEnded(whileIdle: whileIdle))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
