import Synchronization

/// Fans events out to any number of `Observable` subscribers (a
/// `PublishSubject`): a new subscriber sees the events sent after it
/// subscribed. Safe to use from any thread.
final class EventSubject<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [(id: Int, sink: @Sendable (Element) -> Void, finish: @Sendable () -> Void)] = []
        var nextID = 0
        var isCompleted = false
    }

    private let state = Mutex(State())

    /// Registers a subscriber now; it receives `transform(event)` for every
    /// later event for which `transform` returns a value.
    func subscribe<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output?) -> Observable<Output> {
        let (stream, continuation) = AsyncStream<Output>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            guard !state.isCompleted else { return nil }
            state.nextID += 1
            state.subscribers.append((state.nextID, { if let output = transform($0) { continuation.yield(output) } },
                                      { continuation.finish() }))
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return Observable(stream)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return Observable(stream)
    }

    func subscribe() -> Observable<Element> {
        subscribe { $0 }
    }

    /// Delivers `event` to every current subscriber, in subscription order.
    func send(_ event: Element) {
        // Yielding only appends to each subscriber's buffer, so it is done
        // under the lock: concurrent senders cannot reorder events.
        state.withLock { state in
            for subscriber in state.subscribers { subscriber.sink(event) }
        }
    }

    /// Ends every subscription; later subscribers end at once.
    func complete() {
        let finishers = state.withLock { state -> [@Sendable () -> Void] in
            state.isCompleted = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.map(\.finish)
        }
        for finish in finishers { finish() }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in state.subscribers.removeAll { $0.id == id } }
    }
}
