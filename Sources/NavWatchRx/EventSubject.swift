import Synchronization

/// Fans events out to any number of `Observable` subscribers (a
/// `PublishSubject`): a new subscriber sees the events sent after it
/// subscribed. Subscribe from any thread; send and complete from one thread at
/// a time (the WebKit thread for every subject of a delegate proxy): a
/// subscriber's handler runs in `send`, outside the subject's lock, and what
/// it makes the subject send waits its turn.
final class EventSubject<Element: Sendable>: Sendable {
    private let subscribers = Mutex(SubscriberList<Element>())

    /// Registers a subscriber now; it receives `transform(event)` for every
    /// later event for which `transform` returns a value.
    func subscribe<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output?) -> Observable<Output> {
        let sink = SubscriberSink<Output>()
        let id = subscribers.withLock {
            $0.add(sink: { if let output = transform($0) { sink.send(output) } }, finish: { sink.complete() })
        }
        return sink.observable(id: id) { [weak self] id in self?.subscribers.withLock { $0.remove(id) } }
    }

    func subscribe() -> Observable<Element> {
        subscribe { $0 }
    }

    /// Delivers `event` to every current subscriber, in subscription order;
    /// an event sent by a subscriber's handler follows once this one has
    /// reached every subscriber.
    func send(_ event: Element) {
        deliver(.element(event))
    }

    /// Ends every subscription, after the events already sent; later
    /// subscribers end at once.
    func complete() {
        deliver(.completion)
    }

    private func deliver(_ delivery: SubscriberList<Element>.Delivery) {
        SubscriberList.carryOut(subscribers.withLock { $0.begin(delivery) }) { subscribers.withLock { $0.next() } }
    }

    var subscriberCount: Int {
        subscribers.withLock { $0.count }
    }
}
