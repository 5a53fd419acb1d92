import Synchronization

/// A value that changes over time (a `BehaviorRelay`): a new subscriber
/// first receives the current value, then every change. Repeats are skipped.
/// Safe to use from any thread.
final class PropertySubject<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var subscribers: [(id: Int, continuation: AsyncStream<Value>.Continuation)] = []
        var nextID = 0
        var isCompleted = false
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
        let id: Int? = state.withLock { state in
            continuation.yield(state.value)
            guard !state.isCompleted else { return nil }
            state.nextID += 1
            state.subscribers.append((state.nextID, continuation))
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return Observable(stream)
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return Observable(stream)
    }

    /// Stores `value` and sends it, unless it equals the current value.
    func send(_ value: Value) {
        state.withLock { state in
            guard state.value != value else { return }
            state.value = value
            for subscriber in state.subscribers { subscriber.continuation.yield(value) }
        }
    }

    func complete() {
        let continuations = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.isCompleted = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    private func unsubscribe(_ id: Int) {
        state.withLock { state in state.subscribers.removeAll { $0.id == id } }
    }
}
