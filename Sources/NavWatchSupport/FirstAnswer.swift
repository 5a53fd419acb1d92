import Synchronization

/// One answer awaited from several sources (WebKit's callback, a timer, a
/// cancellation): the first `answer(_:)` resumes `wait()`, later ones are
/// dropped. An answer that comes before `wait()` is kept for it. Await it once.
package final class FirstAnswer<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, Never>?)
        case answered(Value)
    }

    private let state = Mutex(State.waiting(nil))

    package init() {}

    package func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Value? in
                if case .answered(let value) = state { return value }
                state = .waiting(continuation)
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    package func answer(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>?? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .answered(value)
            return .some(continuation)
        }
        if case .some(.some(let continuation)) = waiting { continuation.resume(returning: value) }
    }
}
