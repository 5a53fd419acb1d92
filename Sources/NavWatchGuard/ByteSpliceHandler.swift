import NIOCore

/// One direction of a spliced pair of connections: every byte read on this
/// channel is written to `partner`. Both channels of a pair are on the same
/// event loop and each has a `ByteSpliceHandler` whose partner is the other.
///
/// - Backpressure: while `partner` is not writable this channel stops
///   reading; the partner's handler starts it again once it drains.
/// - End of input (half-close, which needs `allowRemoteHalfClosure`): the
///   partner's output is shut once what was written to it is sent (NIO
///   escalates that to a full close when its input has ended too), or, with
///   `closesPartnerAtEnd`, the partner is closed altogether.
/// - This channel closing (either end, a reset, an error) closes the
///   partner once what was written to it is sent.
final class ByteSpliceHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let closesPartnerAtEnd: Bool

    init(partner: any Channel, closesPartnerAtEnd: Bool) {
        self.partner = partner
        self.closesPartnerAtEnd = closesPartnerAtEnd
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.write(unwrapInboundIn(data), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner.flush()
        if !partner.isWritable {
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            partner.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            if closesPartnerAtEnd {
                closePartnerAfterPendingWrites()
            } else {
                partner.close(mode: .output, promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closePartnerAfterPendingWrites()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Writes complete in order, so once an empty write completes, all that
    /// came before it has been sent (or has failed).
    private func closePartnerAfterPendingWrites() {
        let partner = self.partner
        partner.writeAndFlush(partner.allocator.buffer(capacity: 0)).whenComplete { _ in
            partner.close(promise: nil)
        }
    }
}
