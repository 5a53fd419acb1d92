import Synchronization

/// A wait that did not end within its deadline.
package struct DeadlineExceeded: Error, CustomStringConvertible {
    package let what: String
    package let timeout: Duration
    package var description: String { "waited \(timeout) for \(what) in vain" }

    package init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }
}

/// The default deadline of a test's wait for one event: far longer than any
/// event takes here, far shorter than the test run's own time limit.
package let eventDeadline: Duration = .seconds(20)

/// Returns what `operation` returns, or throws `DeadlineExceeded` once
/// `timeout` has passed without it. On a timeout the operation is cancelled
/// and left to end by itself: the test fails now instead of hanging.
package func withDeadline<T: Sendable>(_ what: String, within timeout: Duration = eventDeadline,
                                      _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.begin(continuation)
        let work = Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            if race.finish(.failure(DeadlineExceeded(what: what, timeout: timeout))) { work.cancel() }
        }
        race.onFinish { timer.cancel() }
    }
}

/// The first of two results wins; the other is dropped.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
        var finished = false
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `cleanup` once the race is decided (at once if it already is).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let decided = state.withLock { state in
            if !state.finished { state.cleanup = cleanup }
            return state.finished
        }
        if decided { cleanup() }
    }

    /// Resumes the waiter with `result` unless another result came first.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, cleanup) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer { state.continuation = nil; state.cleanup = nil }
            return (state.continuation, state.cleanup)
        }
        guard let continuation else { return false }
        continuation.resume(with: result)
        cleanup?()
        return true
    }
}
