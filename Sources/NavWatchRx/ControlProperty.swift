/// A property of a view that can be observed and set (RxCocoa's
/// `ControlProperty`): iterating it gives the current value, then every
/// change (repeats skipped); binding a sequence to it sets the property.
public struct ControlProperty<Value: Sendable & Equatable>: AsyncSequence, Sendable {
    /// The property's values.
    public typealias Element = Value
    /// A property never fails.
    public typealias Failure = Never

    /// The values: the current one first, then every change.
    public let values: Observable<Value>
    /// The sink that sets the property.
    public let binder: Binder<Value>

    /// A property made of its two halves: `values` to observe it (the current
    /// value first, then every change) and `binder` to set it.
    public init(values: Observable<Value>, binder: Binder<Value>) {
        self.values = values
        self.binder = binder
    }

    /// Iterates `values`: the current value first, then every change.
    public func makeAsyncIterator() -> Observable<Value>.Iterator {
        values.makeAsyncIterator()
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable & Equatable {
    /// Sets `property` to every element of this sequence.
    public func bind(to property: ControlProperty<Element>) -> BindingToken {
        bind(to: property.binder)
    }
}
