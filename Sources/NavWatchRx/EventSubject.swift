import Synchronization

/// Fans events out to any number of `Observable` subscribers (a
/// `PublishSubject`): a new subscriber sees the events sent after it
/// subscribed. Subscribe from any thread; send and complete from one thread at
/// a time (the WebKit thread for every subject of a delegate proxy), since a
/// subscriber's handler runs in `send`, outside the subject's lock.
final class EventSubject<Element: Sendable>: Sendable {
    private let subscribers = Mutex(SubscriberList<Element>())

    /// Registers a subscriber now; it receives `transform(event)` for every
    /// later event for which `transform` returns a value.
    func subscribe<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output?) -> Observable<Output> {
        let sink = SubscriberSink<Output>()
        let id = subscribers.withLock {
            $0.add(sink: { if let output = transform($0) { sink.send(output) } }, finish: { sink.complete() })
        }
        if let id {
            sink.setUnregister { [weak self] in self?.subscribers.withLock { $0.remove(id) } }
        } else {
            sink.complete()
        }
        return Observable(sink)
    }

    func subscribe() -> Observable<Element> {
        subscribe { $0 }
    }

    /// Delivers `event` to every current subscriber, in subscription order.
    func send(_ event: Element) {
        for sink in subscribers.withLock({ $0.sinks }) { sink(event) }
    }

    /// Ends every subscription; later subscribers end at once.
    func complete() {
        for finish in subscribers.withLock({ $0.complete() }) { finish() }
    }

    var subscriberCount: Int {
        subscribers.withLock { $0.count }
    }
}
