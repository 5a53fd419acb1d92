import WebKitThread

/// A multicast stream of events of one concrete type that never fails.
///
/// Every `Observable` is one subscription, registered when the observable was
/// obtained (not when it is used), so nothing that happens between obtaining
/// it and using it is missed. Use it once, in one of two ways:
/// - iterate it (`for await`) from any task: each event reaches the task
///   through Swift's executors, a thread hand-off or two after it happened;
/// - or `subscribe(onNext:onCompleted:)` on the WebKit actor: each event of a
///   `view.rx` observable is handed to the closure on the WebKit thread, in
///   the signal handler that produced it, before WebKit goes on.
///
/// Runtime behaviour:
/// - Events arrive in the order they were produced, each exactly once.
/// - An iterating subscriber has its own unbounded buffer: a slow subscriber
///   never blocks the producer (the WebKit thread) or other subscribers; it
///   only holds the events it has not consumed yet in memory. A subscribed
///   closure runs while the producer waits, so it should be quick.
/// - It ends (the iterator returns nil, `onCompleted` is called) when its
///   source completes, for the `.rx` members of a `WebView` when the view
///   closes or is deinitialised.
/// - Cancelling the iterating task, disposing of the subscription, or
///   dropping the observable unused ends the subscription and removes it
///   from its source. Using it a second time ends at once.
public struct Observable<Element: Sendable>: AsyncSequence, Sendable {
    /// Observables never fail: failures are values.
    public typealias Failure = Never

    private enum Source: Sendable {
        case stream(AsyncStream<Element>)
        case subject(Registration)
    }

    /// A subject's subscriber, removed from the subject when the last copy of
    /// the observable goes away unused.
    private final class Registration: Sendable {
        let sink: SubscriberSink<Element>

        init(_ sink: SubscriberSink<Element>) {
            self.sink = sink
        }

        deinit {
            sink.abandonIfPending()
        }
    }

    private let source: Source

    /// Wraps `stream`; for building observables of your own (see the
    /// `ReactiveCompatible` example of NavWatchRx.docc/BindingsAndJavaScript.md). Use it once.
    /// Its `subscribe(onNext:onCompleted:)` iterates `stream` in a task on
    /// the WebKit actor, so each event reaches the closure a hop later.
    public init(_ stream: AsyncStream<Element>) {
        source = .stream(stream)
    }

    /// The observable of one subscriber of a subject.
    init(_ sink: SubscriberSink<Element>) {
        source = .subject(Registration(sink))
    }

    /// The iterator of this subscription; make one per observable.
    public func makeAsyncIterator() -> Iterator {
        switch source {
        case .stream(let stream): Iterator(base: stream.makeAsyncIterator())
        case .subject(let registration): Iterator(base: registration.sink.makeStream().makeAsyncIterator())
        }
    }

    /// Calls `onNext` with each event on the WebKit actor, then `onCompleted`
    /// once when the observable ends; returns what ends the subscription
    /// early. Call it instead of iterating, once.
    ///
    /// For the `.rx` members of a `WebView`, `onNext` is called on the WebKit
    /// thread in the turn of the main loop in which WebKit produced the event,
    /// after the view's delegate and before any iterating task sees it, with
    /// no executor hop: first with the events produced since the observable
    /// was obtained (the current value, for a property), during this call,
    /// then with each later event as it is produced. A closure that reads the
    /// view sees it as the event left it.
    ///
    /// The subscription holds the closures until the observable ends or
    /// `dispose()` is called, not until the returned value is dropped: a
    /// closure that captures the view keeps it alive until it closes.
    /// Disposing on the WebKit actor means no call of either closure follows.
    /// An observable iterated or subscribed to before calls `onCompleted` at
    /// once and returns a `Disposable` that does nothing.
    @WebKitActor
    @discardableResult
    public func subscribe(
        onNext: @escaping @WebKitActor (Element) -> Void,
        onCompleted: @escaping @WebKitActor () -> Void = {}
    ) -> Disposable {
        switch source {
        case .subject(let registration):
            let sink = registration.sink
            guard sink.subscribe(onNext: onNext, onCompleted: onCompleted) else { return Disposable {} }
            return Disposable { sink.end() }
        case .stream(let stream):
            let task = Task { @WebKitActor in
                for await element in stream {
                    // Disposed of on the WebKit actor while this task waited to run.
                    if Task.isCancelled { return }
                    onNext(element)
                }
                if !Task.isCancelled { onCompleted() }
            }
            return Disposable { task.cancel() }
        }
    }

    /// The iterator of an `Observable`: `next()` returns each event in order,
    /// waiting for the next one, and nil once the source has completed or the
    /// iterating task was cancelled. It never throws. Use it from one task only.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        /// The next event, waiting for it; nil once the source completed or the task was cancelled.
        public mutating func next() async -> Element? {
            await base.next()
        }

        /// `next()`, run on `actor`: no hop off the caller's actor to wait.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }
}

@available(*, unavailable)
extension Observable.Iterator: Sendable {}
