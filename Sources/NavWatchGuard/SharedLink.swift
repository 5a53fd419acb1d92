import NIOCore
import Synchronization

/// The link every connection of a shaped guard shares: one queue per
/// direction, which sends bytes in the order they reached the guard at the
/// shape's bandwidth, then holds them for half a round trip. Safe from any
/// event loop.
final class SharedLink: Sendable {
    enum Direction {
        /// Towards the client: what targets send.
        case down
        /// Towards targets: what the client sends.
        case up
    }

    let shape: LinkShape
    /// When each direction's queue has sent everything it was given so far.
    private let busyUntil = Mutex<(down: NIODeadline, up: NIODeadline)>((.uptimeNanoseconds(0), .uptimeNanoseconds(0)))

    init(shape: LinkShape) {
        self.shape = shape
    }

    /// The largest piece the queue sends at once: about 10 ms of the
    /// direction's bandwidth (at least one TCP segment), so that what
    /// arrives in one large read still trickles out; nil when unlimited.
    func pieceSize(_ direction: Direction) -> Int? {
        rate(direction).map { max(1460, Int($0 / 100)) }
    }

    /// The most bytes one channel has a time on the link for and not yet
    /// delivered: what the direction carries in half a round trip and 50 ms
    /// more (enough to keep the link busy), at least one piece; unlimited
    /// without a bandwidth.
    func window(_ direction: Direction) -> Int {
        guard let rate = rate(direction) else { return .max }
        return max(pieceSize(direction) ?? 1, Int(rate * (Double(shape.oneWay.nanoseconds) / 1e9 + 0.05)))
    }

    /// When `bytes` that reached the guard `now` arrive at the far end:
    /// after everything queued before them is sent, their own sending time,
    /// and half a round trip.
    func arrival(of bytes: Int, _ direction: Direction, now: NIODeadline) -> NIODeadline {
        guard let rate = rate(direction) else { return now + shape.oneWay }
        let sending = TimeAmount.nanoseconds(Int64((Double(bytes) / rate * 1e9).rounded(.up)))
        let sent = busyUntil.withLock { busy in
            switch direction {
            case .down:
                busy.down = max(busy.down, now) + sending
                return busy.down
            case .up:
                busy.up = max(busy.up, now) + sending
                return busy.up
            }
        }
        return sent + shape.oneWay
    }

    private func rate(_ direction: Direction) -> Double? {
        switch direction {
        case .down: shape.downBytesPerSecond
        case .up: shape.upBytesPerSecond
        }
    }
}
