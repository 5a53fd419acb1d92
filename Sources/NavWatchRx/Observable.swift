/// A multicast stream of events of one concrete type that never fails.
///
/// Every `Observable` is one subscription, registered when the observable was
/// obtained (not when iteration starts), so nothing that happens between
/// obtaining it and iterating it is missed. Iterate it once.
///
/// Runtime behaviour:
/// - Events arrive in the order they were produced, each exactly once.
/// - Each subscriber has its own unbounded buffer: a slow subscriber never
///   blocks the producer (the WebKit thread) or other subscribers; it only
///   holds the events it has not consumed yet in memory.
/// - It ends (the iterator returns nil) when its source completes, for the
///   `.rx` members of a `WebView` when the view closes or is deinitialised.
/// - Cancelling the iterating task, or dropping the observable without
///   iterating it, ends the subscription and removes it from its source.
public struct Observable<Element: Sendable>: AsyncSequence, Sendable {
    /// Observables never fail: failures are values.
    public typealias Failure = Never

    private let stream: AsyncStream<Element>

    /// Wraps `stream`; for building observables of your own (see the
    /// `ReactiveCompatible` example of NavWatchRx.docc/BindingsAndJavaScript.md). Iterate it once.
    public init(_ stream: AsyncStream<Element>) {
        self.stream = stream
    }

    /// The iterator of this subscription; make one per observable.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
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
