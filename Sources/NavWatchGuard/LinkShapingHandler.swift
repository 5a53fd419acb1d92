import NIOCore

/// Holds back what one channel of a shaped guard writes until the shared
/// link would have delivered it (`SharedLink.arrival`): on the client's
/// channel what targets send (down), on a target's channel what the client
/// sends (up). Writes leave in the order given, each completing its promise
/// when it leaves.
///
/// - A half-close waits for what was written before it; a full close drops
///   what is still held (its promises fail) and closes at once.
/// - While more than `highWater` bytes are held, the channel they came from
///   (`source`) is not read; it is read again below `lowWater`.
///
/// Lives on its channel's event loop; `source` is on the same loop.
final class LinkShapingHandler: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let highWater = 256 * 1024
    static let lowWater = 64 * 1024

    private struct Piece {
        var bytes: ByteBuffer
        var due: NIODeadline
        var promise: EventLoopPromise<Void>?
    }

    private let link: SharedLink
    private let direction: SharedLink.Direction
    /// The channel whose bytes this one writes, paused while too much is held.
    weak var source: (any Channel)?
    private var held = CircularBuffer<Piece>()
    private var heldBytes = 0
    private var pausedSource = false
    private var pendingHalfClose: EventLoopPromise<Void>??
    private var timer: Scheduled<Void>?

    init(link: SharedLink, direction: SharedLink.Direction) {
        self.link = link
        self.direction = direction
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        let now = NIODeadline.now()
        let pieceSize = link.pieceSize(direction) ?? max(buffer.readableBytes, 1)
        repeat {
            let piece = buffer.readSlice(length: min(pieceSize, buffer.readableBytes))!
            heldBytes += piece.readableBytes
            held.append(Piece(bytes: piece, due: link.arrival(of: piece.readableBytes, direction, now: now),
                              promise: buffer.readableBytes == 0 ? promise : nil))
        } while buffer.readableBytes > 0
        if heldBytes > Self.highWater, !pausedSource, let source {
            pausedSource = true
            source.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
        scheduleRelease(context: context)
    }

    /// Held bytes are flushed as they leave.
    func flush(context: ChannelHandlerContext) {}

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output, !held.isEmpty {
            pendingHalfClose = .some(promise)
            return
        }
        if mode == .all { dropHeld() }
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        dropHeld()
    }

    private func scheduleRelease(context: ChannelHandlerContext) {
        guard timer == nil, let first = held.first else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: first.due) {
            self.timer = nil
            self.release(context: context)
        }
    }

    /// Writes what is due, then waits for the next piece.
    private func release(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        var wrote = false
        while let first = held.first, first.due <= now {
            held.removeFirst()
            heldBytes -= first.bytes.readableBytes
            context.write(wrapOutboundOut(first.bytes), promise: first.promise)
            wrote = true
        }
        if wrote { context.flush() }
        if pausedSource, heldBytes < Self.lowWater {
            pausedSource = false
            source?.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        if held.isEmpty, let promise = pendingHalfClose {
            pendingHalfClose = nil
            context.close(mode: .output, promise: promise)
        }
        scheduleRelease(context: context)
    }

    private func dropHeld() {
        timer?.cancel()
        timer = nil
        let dropped = held
        held.removeAll()
        heldBytes = 0
        for piece in dropped { piece.promise?.fail(ChannelError.ioOnClosedChannel) }
        if let promise = pendingHalfClose {
            pendingHalfClose = nil
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }
}
