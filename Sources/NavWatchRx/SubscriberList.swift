/// The subscribers of one subject (`EventSubject`, `PropertySubject`), kept
/// inside that subject's lock: each has an id, a sink for values and a way
/// to finish it. Once completed, the list takes no new subscriber.
///
/// It also keeps the subject's deliveries in order. The subject calls the
/// sinks outside its lock, so a subscriber's handler can make the subject
/// send again (a closure that stops or closes the view); such a delivery
/// waits in a queue until the one in progress has reached every subscriber.
struct SubscriberList<Element: Sendable> {
    /// What a subject hands its subscribers.
    enum Delivery: Sendable {
        case element(Element)
        case completion
    }

    /// One delivery, ready to be carried out outside the lock: the element
    /// and the sinks to call, or the finishers of a completion.
    enum Round: Sendable {
        case element(Element, [@Sendable (Element) -> Void])
        case completion([@Sendable () -> Void])

        /// Calls the sinks, or the finishers, in subscription order.
        func run() {
            switch self {
            case .element(let element, let sinks): for sink in sinks { sink(element) }
            case .completion(let finishers): for finish in finishers { finish() }
            }
        }
    }

    private var subscribers: [(id: Int, sink: @Sendable (Element) -> Void, finish: @Sendable () -> Void)] = []
    private var nextID = 0
    private var isCompleted = false
    private var isDelivering = false
    private var queue: [Delivery] = []

    /// Adds a subscriber; nil (and nothing added) once completed.
    mutating func add(sink: @escaping @Sendable (Element) -> Void, finish: @escaping @Sendable () -> Void) -> Int? {
        guard !isCompleted else { return nil }
        nextID += 1
        subscribers.append((nextID, sink, finish))
        return nextID
    }

    mutating func remove(_ id: Int) {
        subscribers.removeAll { $0.id == id }
    }

    /// The round that carries out `delivery` now, or nil when a delivery is
    /// in progress: `delivery` then waits its turn (`next()`).
    mutating func begin(_ delivery: Delivery) -> Round? {
        if isDelivering {
            queue.append(delivery)
            return nil
        }
        isDelivering = true
        return round(for: delivery)
    }

    /// The round of the delivery that waited longest, once the last round
    /// ran; nil, and no delivery in progress, when none waits.
    mutating func next() -> Round? {
        guard !queue.isEmpty else {
            isDelivering = false
            return nil
        }
        return round(for: queue.removeFirst())
    }

    /// Runs `first` (what `begin` returned), then each round `next` gives
    /// (what `next()` returns, read under the subject's lock), until none
    /// is left. The rounds run outside the lock.
    static func carryOut(_ first: Round?, next: () -> Round?) {
        var round = first
        while let current = round {
            current.run()
            round = next()
        }
    }

    private mutating func round(for delivery: Delivery) -> Round {
        switch delivery {
        case .element(let element):
            return .element(element, subscribers.map(\.sink))
        case .completion:
            // Marks the list completed and empties it.
            isCompleted = true
            defer { subscribers.removeAll() }
            return .completion(subscribers.map(\.finish))
        }
    }

    var count: Int { subscribers.count }
}
