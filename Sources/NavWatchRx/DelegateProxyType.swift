import WebKitThread

/// The type-level contract of a delegate proxy: how it is found, installed
/// and kept, one proxy per parent object.
///
/// ```
///   parent object (WebView)            DelegateProxy
///  ┌───────────────────────┐  delegate ┌──────────────────────────────┐
///  │ navigationDelegate ───┼─────────▶│ sentMessage ─▶ observers      │
///  │ associatedObjects ────┼─ keeps ─▶│ forward delegate (weak/strong)│
///  └───────────────────────┘           │ methodInvoked ─▶ observers    │
///                                      └──────────────┬───────────────┘
///                                                     ▼
///                                     the delegate you set or installed
/// ```
///
/// - `proxy(for:)` returns the same proxy for the same object every time and
///   makes it the object's delegate. A delegate that was set before becomes
///   the proxy's forward delegate, held weakly, and keeps receiving every call.
/// - Setting the object's delegate directly afterwards displaces the proxy;
///   the next `proxy(for:)` puts the proxy back and keeps that delegate as the
///   forward delegate. Prefer `installForwardDelegate(_:retainDelegate:)`.
/// - The parent object keeps the proxy alive (in `associatedObjects`); the
///   proxy holds the parent weakly.
@WebKitActor
public protocol DelegateProxyType: AnyObject {
    /// The type whose delegate the proxy stands in for (`WebView`); it keeps the
    /// proxy alive in its `associatedObjects`.
    associatedtype ParentObject: HasAssociatedObjects
    /// The delegate protocol the proxy implements and forwards
    /// (`any NavigationDelegate`).
    associatedtype Delegate

    /// Creates the proxy for `parentObject`. Called once per object, by `proxy(for:)`.
    init(parentObject: ParentObject)

    /// The object's delegate as it is now.
    static func currentDelegate(for object: ParentObject) -> Delegate?
    /// Sets the object's delegate.
    static func setCurrentDelegate(_ delegate: Delegate?, to object: ParentObject)
    /// The proxy seen as a `Delegate`.
    var asDelegate: Delegate { get }
    /// Installs `delegate` as the proxy's forward delegate.
    func installForwardDelegate(_ delegate: Delegate, retainDelegate: Bool) -> ForwardDelegateToken
}

/// An object that keeps other objects for its whole life, keyed by type:
/// where a proxy is kept.
@WebKitActor
public protocol HasAssociatedObjects: AnyObject {
    /// The objects kept, keyed by their type; each lives as long as this object
    /// does. Read and written on the WebKit thread.
    var associatedObjects: [ObjectIdentifier: AnyObject] { get set }
}

extension DelegateProxyType {
    /// The proxy of `object`, created and installed as its delegate on first use.
    public static func proxy(for object: ParentObject) -> Self {
        let key = ObjectIdentifier(Self.self)
        let proxy: Self
        if let existing = object.associatedObjects[key] as? Self {
            proxy = existing
        } else {
            proxy = Self(parentObject: object)
            object.associatedObjects[key] = proxy
        }
        let current = currentDelegate(for: object)
        if let current, (current as AnyObject) !== proxy {
            _ = proxy.installForwardDelegate(current, retainDelegate: false)
        }
        if (current as AnyObject?) !== proxy {
            setCurrentDelegate(proxy.asDelegate, to: object)
        }
        return proxy
    }
}

/// Removes the forward delegate it was returned for, and only that one.
/// Cancelling twice does nothing.
@WebKitActor
public final class ForwardDelegateToken {
    private var onCancel: (() -> Void)?

    init(onCancel: @escaping () -> Void) {
        self.onCancel = onCancel
    }

    /// Removes the forward delegate this token was returned for, and only
    /// that one: it receives no call after this returns. When it was the
    /// most recent one, the one installed before it (if still alive)
    /// receives the calls again. Cancelling twice does nothing.
    public func cancel() {
        onCancel?()
        onCancel = nil
    }
}
