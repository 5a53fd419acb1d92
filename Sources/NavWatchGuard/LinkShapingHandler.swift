import NIOCore

/// Holds back what one channel of a shaped guard writes until the shared
/// link would have delivered it (`SharedLink.arrival`): on the client's
/// channel what targets send (down), on a target's channel what the client
/// sends (up). Writes leave in the order given, each completing its promise
/// when it leaves.
///
/// - Link time is taken a little at a time: a channel has at most `window`
///   bytes given a time on the link and not yet delivered (what the link
///   carries in half a round trip, and 50 ms more), so the channels of one
///   link take turns, and bytes a closed channel drops waste at most that.
/// - Nothing is written while the channel is not writable.
/// - A half-close waits for what was written before it; a full close drops
///   what is still held (its promises fail) and closes at once.
/// - While more than `highWater` bytes are held, the channel they came from
///   (`source`) is not read; it is read again below `lowWater`.
///
/// Lives on its channel's event loop; `source` is on the same loop.
final class LinkShapingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let highWater = 256 * 1024
    static let lowWater = 64 * 1024

    private struct Piece {
        var bytes: ByteBuffer
        var promise: EventLoopPromise<Void>?
        /// When the link delivers it; nil until it has a time on the link.
        var due: NIODeadline?
    }

    private let link: SharedLink
    private let direction: SharedLink.Direction
    /// The channel whose bytes this one writes, paused while too much is held.
    weak var source: (any Channel)?
    /// Pieces with a time on the link, in order, then those without.
    private var held = CircularBuffer<Piece>()
    /// How many of `held` have a time on the link, and their bytes.
    private var timed = 0
    private var timedBytes = 0
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
        let pieceSize = link.pieceSize(direction) ?? max(buffer.readableBytes, 1)
        repeat {
            let piece = buffer.readSlice(length: min(pieceSize, buffer.readableBytes))!
            heldBytes += piece.readableBytes
            held.append(Piece(bytes: piece, promise: buffer.readableBytes == 0 ? promise : nil))
        } while buffer.readableBytes > 0
        if heldBytes > Self.highWater, let source {
            // Whatever else turned reading on: too much is held.
            pausedSource = true
            source.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
        takeLinkTime()
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

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { release(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        dropHeld()
    }

    /// Gives the first pieces without a time on the link one, while fewer
    /// than `window` bytes have one.
    private func takeLinkTime() {
        let window = link.window(direction)
        let now = NIODeadline.now()
        while timed < held.count, timed == 0 || timedBytes < window {
            let bytes = held[offset: timed].bytes.readableBytes
            held[offset: timed].due = link.arrival(of: bytes, direction, now: now)
            timed += 1
            timedBytes += bytes
        }
    }

    private func scheduleRelease(context: ChannelHandlerContext) {
        // An unwritable channel is released again when it can take more (`channelWritabilityChanged`).
        guard timer == nil, timed > 0, context.channel.isWritable, let due = held.first?.due else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            self.timer = nil
            self.release(context: context)
        }
    }

    /// Writes what is due (while the channel takes it), then waits for the next piece.
    private func release(context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        var wrote = false
        while context.channel.isWritable, timed > 0, let first = held.first, let due = first.due, due <= now {
            held.removeFirst()
            timed -= 1
            timedBytes -= first.bytes.readableBytes
            heldBytes -= first.bytes.readableBytes
            context.write(wrapOutboundOut(first.bytes), promise: first.promise)
            wrote = true
        }
        if wrote { context.flush() }
        takeLinkTime()
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
        timed = 0
        timedBytes = 0
        heldBytes = 0
        for piece in dropped { piece.promise?.fail(ChannelError.ioOnClosedChannel) }
        if let promise = pendingHalfClose {
            pendingHalfClose = nil
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }
}
