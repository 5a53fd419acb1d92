import Synchronization

/// Reads an async sequence in the background so that a test can wait for its
/// next element, or for its end, with a deadline on every wait.
///
/// It subscribes to nothing itself: an `Observable` is subscribed when it is
/// obtained, so obtain it before the action whose events it should see. The
/// sequence is read from the moment the log is made until it ends or the log
/// is dropped.
package final class EventLog<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var ended = false
        /// The one reader waiting, and the timer that wakes it at its deadline.
        var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>, timer: Task<Void, Never>?)?
        var nextWaiter = 0
    }

    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    private let storage = Storage()
    private let reader: Task<Void, Never>

    package init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element, S.Failure == Never {
        reader = Task { [storage] in
            for await element in sequence {
                Self.update(storage) { $0.buffer.append(element) }
            }
            Self.update(storage) { $0.ended = true }
        }
    }

    deinit {
        reader.cancel()
    }

    /// The next element, or nil when the sequence has ended.
    ///
    /// - Throws: `DeadlineExceeded` when neither came within `timeout`.
    package func next(_ what: String = "the next event", within timeout: Duration = eventDeadline) async throws -> Element? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (element, ended) = storage.state.withLock { state -> (Element?, Bool) in
                state.buffer.isEmpty ? (nil, state.ended) : (state.buffer.removeFirst(), false)
            }
            if let element { return element }
            if ended { return nil }
            guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what, timeout: timeout) }
            await waitForChange(until: deadline)
        }
    }

    /// Every element up to the end of the sequence.
    ///
    /// - Throws: `DeadlineExceeded` when the sequence did not end within `timeout`.
    package func rest(_ what: String = "the end of the events", within timeout: Duration = eventDeadline) async throws -> [Element] {
        var elements: [Element] = []
        let deadline = ContinuousClock.now + timeout
        while let element = try await next(what, within: max(.zero, deadline - ContinuousClock.now)) {
            elements.append(element)
        }
        return elements
    }

    /// Elements up to and including the first one `isLast` accepts.
    ///
    /// - Throws: `DeadlineExceeded` when none came within `timeout`, or the
    ///   sequence ended before one did.
    package func until(_ what: String, within timeout: Duration = eventDeadline,
                      _ isLast: @Sendable (Element) -> Bool) async throws -> [Element] {
        var elements: [Element] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let element = try await next(what, within: max(.zero, deadline - ContinuousClock.now)) else {
                throw DeadlineExceeded(what: "\(what) (the events ended first, after \(elements.count))", timeout: timeout)
            }
            elements.append(element)
            if isLast(element) { return elements }
        }
    }

    /// Returns after the next change (an element or the end), or at `deadline`.
    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { continuation in
            let id = storage.state.withLock { state -> Int? in
                guard state.buffer.isEmpty && !state.ended else { return nil }
                precondition(state.waiter == nil, "EventLog has one reader: wait for one next() before calling another")
                state.nextWaiter += 1
                state.waiter = (state.nextWaiter, continuation, nil)
                return state.nextWaiter
            }
            guard let id else { return continuation.resume() }
            let timer = Task { [storage] in
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                let waiter = storage.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.waiter?.id == id else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter?.continuation
                }
                waiter?.resume()
            }
            let resumedMeanwhile = storage.state.withLock { state -> Bool in
                guard state.waiter?.id == id else { return true }
                state.waiter?.timer = timer
                return false
            }
            if resumedMeanwhile { timer.cancel() }
        }
    }

    private static func update(_ storage: Storage, _ change: (inout State) -> Void) {
        let waiter = storage.state.withLock { state -> (CheckedContinuation<Void, Never>, Task<Void, Never>?)? in
            change(&state)
            defer { state.waiter = nil }
            return state.waiter.map { ($0.continuation, $0.timer) }
        }
        waiter?.1?.cancel()
        waiter?.0.resume()
    }
}
