import Logging
import WebKitThread

/// A sink that applies each value to a target object on the WebKit thread
/// (RxCocoa's `Binder`).
///
/// - It holds its target weakly: a value that arrives after the target is
///   gone (or, for a `WebView`, closed) is dropped, and a binding feeding it ends.
/// - It applies values on the WebKit thread, hopping there from wherever the
///   value was produced.
/// - It never receives failures: `bind(to:)` logs a failing source and ends
///   the binding without touching the target.
public struct Binder<Value: Sendable>: Sendable {
    private let apply: @WebKitActor @Sendable (Value) -> Bool

    /// - Parameters:
    ///   - target: what the values are applied to; held weakly.
    ///   - isGone: whether the target can no longer take values (a closed view).
    ///   - binding: applies one value to the target.
    public init<Target: AnyObject & Sendable>(
        _ target: Target,
        isGone: @escaping @WebKitActor @Sendable (Target) -> Bool = { _ in false },
        binding: @escaping @WebKitActor @Sendable (Target, Value) -> Void
    ) {
        apply = { [weak target] value in
            guard let target, !isGone(target) else { return false }
            binding(target, value)
            return true
        }
    }

    /// Applies `value` on the WebKit thread. Returns false, and applies
    /// nothing, when the target is gone.
    @discardableResult
    public func on(_ value: Value) async -> Bool {
        await apply(value)
    }
}

/// A running binding; `cancel()` stops it. It also ends by itself when the
/// source ends or fails, or the binder's target goes away.
public final class BindingToken: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops the binding: no value is applied after this returns... unless one
    /// was being applied on the WebKit thread at that very moment.
    public func cancel() {
        task.cancel()
    }

    /// Waits until the binding has ended.
    public func ended() async {
        await task.value
    }
}

private let logger = Logger(label: "navwatch.binder")

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// Applies every element of this sequence to `binder`, in order, until the
    /// sequence ends, fails (logged, never applied), the binder's target goes
    /// away, or the returned token is cancelled.
    public func bind(to binder: Binder<Element>) -> BindingToken {
        BindingToken(task: Task {
            do {
                for try await value in self {
                    guard !Task.isCancelled, await binder.on(value) else { return }
                }
            } catch is CancellationError {
                return
            } catch {
                logger.error("a bound sequence failed; the binding ended", metadata: ["error": "\(error)"])
            }
        })
    }
}
