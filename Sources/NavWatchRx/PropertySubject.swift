import Synchronization

/// A value that changes over time (a `BehaviorRelay`): a new subscriber
/// first receives the current value, then every change. Repeats are skipped.
/// Subscribe and read from any thread; send and complete from one thread at a
/// time (the WebKit thread), as `EventSubject`.
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
        let sink = SubscriberSink<Value>()
        let id = state.withLock { state in
            // Under the lock, so no change can come between the value and the
            // registration. The new sink only holds it: no handler runs here.
            sink.send(state.value)
            return state.subscribers.add(sink: { sink.send($0) }, finish: { sink.complete() })
        }
        if let id {
            sink.setUnregister { [weak self] in self?.state.withLock { $0.subscribers.remove(id) } }
        } else {
            sink.complete()
        }
        return Observable(sink)
    }

    /// Stores `value` and sends it, unless it equals the current value.
    func send(_ value: Value) {
        let sinks = state.withLock { state -> [@Sendable (Value) -> Void] in
            guard state.value != value else { return [] }
            state.value = value
            return state.subscribers.sinks
        }
        for sink in sinks { sink(value) }
    }

    func complete() {
        for finish in state.withLock({ $0.subscribers.complete() }) { finish() }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }
}
