@preconcurrency import Dispatch
import Foundation
import Synchronization

/// Turns the first SIGINT or SIGTERM into a call of `onInterrupt` instead of
/// killing the process, so the running navigation can be reported as
/// cancelled; a second signal exits at once with status 130.
// Unchecked: `sources` is written once in init and only kept alive after it.
final class InterruptHandler: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let count = Atomic<Int>(0)

    init(onInterrupt: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [unowned self] in
                if self.count.add(1, ordering: .relaxed).newValue > 1 { exit(130) }
                onInterrupt()
            }
            source.resume()
        }
    }

    /// Whether a signal arrived.
    var fired: Bool { count.load(ordering: .relaxed) > 0 }
}
