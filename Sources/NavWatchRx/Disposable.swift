/// What ends a subscription made with `Observable.subscribe(onNext:onCompleted:)`
/// (RxSwift's `Disposable`).
///
/// Dropping it does not end the subscription; `dispose()` does, and so does
/// the observable's end. Calling `dispose()` more than once, or after the
/// observable ended, does nothing more.
public struct Disposable: Sendable {
    private let action: @Sendable () -> Void

    /// A disposable that runs `dispose` when it is disposed of.
    public init(_ dispose: @escaping @Sendable () -> Void) {
        action = dispose
    }

    /// Ends the subscription: its closures are released and, when called on
    /// the WebKit actor, not called again. Safe from any thread.
    public func dispose() {
        action()
    }
}
