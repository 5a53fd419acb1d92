import Synchronization

/// Fans events out to any number of `Observable` subscribers (a
/// `PublishSubject`): a new subscriber sees the events sent after it
/// subscribed. Safe to use from any thread.
final class EventSubject<Element: Sendable>: Sendable {
    private let subscribers = Mutex(SubscriberList<Element>())

    /// Registers a subscriber now; it receives `transform(event)` for every
    /// later event for which `transform` returns a value.
    func subscribe<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output?) -> Observable<Output> {
        let (stream, continuation) = AsyncStream<Output>.makeStream(bufferingPolicy: .unbounded)
        let id = subscribers.withLock {
            $0.add(sink: { if let output = transform($0) { continuation.yield(output) } },
                   finish: { continuation.finish() })
        }
        guard let id else {
            continuation.finish()
            return Observable(stream)
        }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { $0.remove(id) } }
        return Observable(stream)
    }

    func subscribe() -> Observable<Element> {
        subscribe { $0 }
    }

    /// Delivers `event` to every current subscriber, in subscription order.
    func send(_ event: Element) {
        // Yielding only appends to each subscriber's buffer, so it is done
        // under the lock: concurrent senders cannot reorder events.
        subscribers.withLock { $0.send(event) }
    }

    /// Ends every subscription; later subscribers end at once.
    func complete() {
        for finish in subscribers.withLock({ $0.complete() }) { finish() }
    }

    var subscriberCount: Int {
        subscribers.withLock { $0.count }
    }
}
