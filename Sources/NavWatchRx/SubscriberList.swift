/// The subscribers of one subject (`EventSubject`, `PropertySubject`), kept
/// inside that subject's lock: each has an id, a sink for values and a way
/// to finish it. Once completed, the list takes no new subscriber.
struct SubscriberList<Element: Sendable> {
    private var subscribers: [(id: Int, sink: @Sendable (Element) -> Void, finish: @Sendable () -> Void)] = []
    private var nextID = 0
    private var isCompleted = false

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

    /// Every subscriber's sink, in subscription order: the subject calls them
    /// outside its lock, so that a subscriber's handler may subscribe or dispose.
    var sinks: [@Sendable (Element) -> Void] {
        subscribers.map(\.sink)
    }

    /// Marks the list completed, empties it, and returns the finishers to call
    /// outside the lock (finishing a stream calls back into `remove`).
    mutating func complete() -> [@Sendable () -> Void] {
        isCompleted = true
        defer { subscribers.removeAll() }
        return subscribers.map(\.finish)
    }

    var count: Int { subscribers.count }
}
