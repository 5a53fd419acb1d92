import NavWatchSupport
import NIOCore

extension Duration {
    /// `2 s`, `0.5 s`: for messages.
    var secondsDescription: String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// The duration as NIO's `TimeAmount` (nanoseconds, saturating).
    var timeAmount: TimeAmount {
        let (wholeSeconds, attoseconds) = components
        let (nanoseconds, overflow) = wholeSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .nanoseconds(.max) : .nanoseconds(nanoseconds + attoseconds / 1_000_000_000)
    }
}
