import Synchronization

/// A value that changes over time (a `BehaviorRelay`): a new subscriber
/// first receives the current value, then every change. Repeats are skipped.
/// Safe to use from any thread.
final class PropertySubject<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var subscribers = SubscriberList<Value>()
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    var value: Value {
        state.withLock { $0.value }
    }

    /// Registers a subscriber and gives it the current value at once.
    func subscribe() -> Observable<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            // Under the lock, so no change can come between the value and the registration.
            continuation.yield(state.value)
            return state.subscribers.add(sink: { continuation.yield($0) }, finish: { continuation.finish() })
        }
        guard let id else {
            continuation.finish()
            return Observable(stream)
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.subscribers.remove(id) } }
        return Observable(stream)
    }

    /// Stores `value` and sends it, unless it equals the current value.
    func send(_ value: Value) {
        state.withLock { state in
            guard state.value != value else { return }
            state.value = value
            state.subscribers.send(value)
        }
    }

    func complete() {
        for finish in state.withLock({ $0.subscribers.complete() }) { finish() }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }
}
