import Synchronization

/// A value that changes over time (a `BehaviorRelay`): a new subscriber
/// first receives the current value, then every change. Repeats are skipped.
/// Subscribe and read from any thread; send and complete from one thread at a
/// time (the WebKit thread), as `EventSubject`.
final class PropertySubject<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var subscribers = SubscriberList<Value>()

        /// `round`, or the next one after it, that does not repeat the
        /// current value, which it becomes; nil when none is left.
        mutating func accepted(_ round: SubscriberList<Value>.Round?) -> SubscriberList<Value>.Round? {
            var round = round
            while case .element(let value, _)? = round, value == self.value {
                round = subscribers.next()
            }
            if case .element(let value, _)? = round { self.value = value }
            return round
        }
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
        return sink.observable(id: id) { [weak self] id in self?.state.withLock { $0.subscribers.remove(id) } }
    }

    /// Stores `value` and sends it, unless it equals the current value; a
    /// value sent by a subscriber's handler is stored and sent once this one
    /// has reached every subscriber.
    func send(_ value: Value) {
        deliver(.element(value))
    }

    /// Ends every subscription, after the values already sent.
    func complete() {
        deliver(.completion)
    }

    private func deliver(_ delivery: SubscriberList<Value>.Delivery) {
        SubscriberList.carryOut(state.withLock { $0.accepted($0.subscribers.begin(delivery)) }) {
            state.withLock { $0.accepted($0.subscribers.next()) }
        }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }
}
