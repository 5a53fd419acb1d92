/// The `.rx` namespace: a value that wraps `base` so that reactive members
/// can be added with `extension Reactive where Base: SomeType { ... }`
/// without cluttering `SomeType` itself.
public struct Reactive<Base> {
    /// The object the reactive members act on.
    public let base: Base

    /// Wraps `base`. Usually you do not call this: `base.rx` does.
    public init(_ base: Base) {
        self.base = base
    }
}

/// Gives conforming types an `rx` namespace, for instances and for the type.
public protocol ReactiveCompatible {
    /// The type whose reactive members `rx` gives: the conforming type itself.
    associatedtype ReactiveBase

    /// Reactive members of this instance.
    var rx: Reactive<ReactiveBase> { get set }
    /// Reactive members of this type.
    static var rx: Reactive<ReactiveBase>.Type { get set }
}

extension ReactiveCompatible {
    /// Reactive members of this instance: a new `Reactive` wrapping `self`
    /// each time it is read. Setting it does nothing; the setter only lets
    /// mutating members be declared on `Reactive`.
    public var rx: Reactive<Self> {
        get { Reactive(self) }
        // swiftlint:disable:next unused_setter_value
        set {}  // lets mutating members be declared on `Reactive`
    }

    /// Reactive members of this type. Setting it does nothing.
    public static var rx: Reactive<Self>.Type {
        get { Reactive<Self>.self }
        // swiftlint:disable:next unused_setter_value
        set {}
    }
}

extension Reactive: Sendable where Base: Sendable {}
