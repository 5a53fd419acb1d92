import Synchronization
import WebKitThread

/// One subscriber of a subject (`EventSubject`, `PropertySubject`): where the
/// subject sends its events, and what became of the `Observable` it backs.
///
/// It starts out holding the events sent since it subscribed. Iterating the
/// observable turns it into a stream (`makeStream()`), which takes those
/// events first; `subscribe(onNext:onCompleted:)` turns it into a call per
/// event, made by `send` itself on the sending thread (the WebKit thread),
/// after the held events. Either happens once; after that, and after it
/// ended, it only ends at once.
///
/// `send` and `complete` are called outside the subject's lock, from one
/// thread at a time, so that a handler may subscribe or dispose.
final class SubscriberSink<Element: Sendable>: Sendable {
    private enum State {
        /// Neither iterated nor subscribed to, or being subscribed to
        /// (`claimed`: its held events are being handed over): the events
        /// so far, and whether the subject completed.
        case pending([Element], completed: Bool, claimed: Bool)
        case stream(AsyncStream<Element>.Continuation)
        case handler(onNext: @WebKitActor (Element) -> Void, onCompleted: @WebKitActor () -> Void)
        /// Completed, disposed, cancelled or abandoned.
        case ended
    }

    private struct Box {
        var state = State.pending([], completed: false, claimed: false)
        /// Removes the sink from its subject; nil once called or completed.
        var unregister: (@Sendable () -> Void)?
    }

    private let box = Mutex(Box())

    /// What `complete()` does outside the lock.
    private enum Ending {
        case none, finish(AsyncStream<Element>.Continuation), call(@WebKitActor () -> Void)
    }

    /// What `subscribe` does next outside the lock.
    private enum Step {
        case deliver([Element]), subscribed, completed, unusable
    }

    /// The observable this sink backs, once its subject added it as `id`
    /// (nil: the subject had completed, so the observable ends at once);
    /// `remove` takes it off the subject when it ends early.
    func observable(id: Int?, remove: @escaping @Sendable (Int) -> Void) -> Observable<Element> {
        if let id {
            setUnregister { remove(id) }
        } else {
            complete()
        }
        return Observable(self)
    }

    /// Sets what removes the sink from its subject, or calls it at once when
    /// the sink has already ended.
    private func setUnregister(_ unregister: @escaping @Sendable () -> Void) {
        let ended = box.withLock { box in
            if case .ended = box.state { return true }
            box.unregister = unregister
            return false
        }
        if ended { unregister() }
    }

    /// Delivers `element`: holds it, yields it to the stream, or calls the
    /// handler (on the WebKit thread, which must be the caller's).
    func send(_ element: Element) {
        let onNext: (@WebKitActor (Element) -> Void)? = box.withLock { box in
            switch box.state {
            case .pending(var events, let completed, let claimed):
                box.state = .ended  // so that `events` is not copied on append
                events.append(element)
                box.state = .pending(events, completed: completed, claimed: claimed)
                return nil
            case .stream(let continuation):
                continuation.yield(element)
                return nil
            case .handler(let onNext, _):
                return onNext
            case .ended:
                return nil
            }
        }
        if let onNext { WebKitActor.assumeIsolated { onNext(element) } }
    }

    /// The subject completed: ends the stream, calls the completion handler,
    /// or keeps the news for whoever uses the observable later.
    func complete() {
        let ending: Ending = box.withLock { box in
            box.unregister = nil
            switch box.state {
            case .pending(let events, _, let claimed):
                box.state = .pending(events, completed: true, claimed: claimed)
                return .none
            case .stream(let continuation):
                box.state = .ended
                return .finish(continuation)
            case .handler(_, let onCompleted):
                box.state = .ended
                return .call(onCompleted)
            case .ended:
                return .none
            }
        }
        switch ending {
        case .none: break
        case .finish(let continuation): continuation.finish()
        case .call(let onCompleted): WebKitActor.assumeIsolated { onCompleted() }
        }
    }

    /// Ends the sink and removes it from its subject: disposed, its stream
    /// terminated, or its observable dropped unused (`abandonIfPending`).
    func end() {
        let unregister = box.withLock { box in
            box.state = .ended
            defer { box.unregister = nil }
            return box.unregister
        }
        unregister?()
    }

    /// Ends the sink if nobody iterated or subscribed to its observable.
    func abandonIfPending() {
        let pending = box.withLock { box in
            if case .pending(_, _, claimed: false) = box.state { return true }
            return false
        }
        if pending { end() }
    }

    /// The stream of the held and later events; one that ends at once when
    /// the sink was iterated, subscribed to or ended before.
    func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let live = box.withLock { box in
            guard case .pending(let events, let completed, claimed: false) = box.state else { return false }
            for event in events { continuation.yield(event) }
            if completed { box.state = .ended; return false }
            box.state = .stream(continuation)
            return true
        }
        if live {
            // The stream's consumer cancelled, or dropped it.
            continuation.onTermination = { [weak self] _ in self?.end() }
        } else {
            continuation.finish()
        }
        return stream
    }

    /// Calls `onNext` with the held events, then with every later one as it
    /// is sent, and `onCompleted` once the subject completes. Returns false,
    /// after calling `onCompleted` at once, when the sink was used or ended
    /// before.
    @WebKitActor
    func subscribe(onNext: @escaping @WebKitActor (Element) -> Void, onCompleted: @escaping @WebKitActor () -> Void) -> Bool {
        let claimed = box.withLock { box in
            guard case .pending(let events, let completed, claimed: false) = box.state else { return false }
            box.state = .pending(events, completed: completed, claimed: true)
            return true
        }
        guard claimed else {
            onCompleted()
            return false
        }
        // The held events go first, a batch at a time, while the sink stays
        // claimed: an event sent from inside `onNext` is held behind them.
        while true {
            let step: Step = box.withLock { box in
                guard case .pending(let events, let completed, claimed: true) = box.state else { return .unusable }
                if !events.isEmpty {
                    box.state = .pending([], completed: completed, claimed: true)
                    return .deliver(events)
                }
                if completed {
                    box.state = .ended
                    return .completed
                }
                box.state = .handler(onNext: onNext, onCompleted: onCompleted)
                return .subscribed
            }
            switch step {
            case .deliver(let events):
                for event in events { onNext(event) }
            case .subscribed:
                return true
            case .completed:
                onCompleted()
                return true
            case .unusable:
                // Ended (`end()`) while its held events were handed over.
                return true
            }
        }
    }
}
