import NIOCore

/// The network a guard's connections behave as if they crossed: a round
/// trip and, in each direction, a bandwidth. A guard with a shape treats
/// all its connections as one link (one phone's connection): they share
/// its bandwidth.
package struct LinkShape: Sendable, Equatable {
    /// The round-trip time added: half on each direction of every byte, and
    /// one whole round trip for each new connection to a target.
    var roundTrip: TimeAmount
    /// Bytes per second towards the client (downloads); nil: no limit.
    package var downBytesPerSecond: Double?
    /// Bytes per second from the client (uploads); nil: no limit.
    package var upBytesPerSecond: Double?

    package init(roundTrip: Duration, downBytesPerSecond: Double?, upBytesPerSecond: Double?) {
        self.roundTrip = TimeAmount(roundTrip)
        self.downBytesPerSecond = downBytesPerSecond
        self.upBytesPerSecond = upBytesPerSecond
    }

    /// Half of `roundTrip`: what each byte waits in each direction.
    var oneWay: TimeAmount { .nanoseconds(roundTrip.nanoseconds / 2) }
}
