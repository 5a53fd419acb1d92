import WebKitThread

/// The per-instance half of a delegate proxy: forward delegates and the
/// `sentMessage` / `methodInvoked` streams. Subclass it once per delegate
/// protocol and implement each protocol method with `forward(_:_:)` (methods
/// without a result) or by asking `forwardDelegate` (methods with a result).
///
/// - Forward delegates: the most recently installed one that is still alive
///   receives the calls; removing it (its token) uncovers the previous one.
/// - Methods without a result: `sentMessage` observers see the call before
///   the forward delegate runs, `methodInvoked` observers after it.
/// - Methods with a result are answered by the forward delegate, or by the
///   protocol's documented default when there is none, exactly once.
///   Observers may watch them, never answer them.
/// - Everything completes when `completeAll()` is called (the parent closed)
///   or the proxy is deinitialised.
@WebKitActor
open class DelegateProxy<ParentObject: AnyObject, Delegate, Message: Sendable> {
    /// The object whose delegate this proxy is. Held weakly.
    public private(set) weak var parentObject: ParentObject?

    private struct ForwardEntry {
        let id: Int
        weak var weakObject: AnyObject?
        let strongObject: AnyObject?
        var object: AnyObject? { strongObject ?? weakObject }
    }

    private var forwardEntries: [ForwardEntry] = []
    private var nextEntryID = 0
    private let sent = EventSubject<Message>()
    private let invoked = EventSubject<Message>()
    private var completions: [() -> Void] = []
    private var counters: [() -> Int] = []

    /// A proxy for `parentObject`, held weakly, with no forward delegate and no
    /// subscriber yet. Use `DelegateProxyType.proxy(for:)` rather than this: it
    /// makes one proxy per object and installs it as the object's delegate.
    public init(parentObject: ParentObject) {
        self.parentObject = parentObject
        registerSubject(complete: sent.complete, count: { [sent] in sent.subscriberCount })
        registerSubject(complete: invoked.complete, count: { [invoked] in invoked.subscriberCount })
    }

    isolated deinit {
        for complete in completions { complete() }
    }

    /// The delegate that receives forwarded calls: the most recently installed
    /// one still alive.
    public var forwardDelegate: Delegate? {
        forwardEntries.reversed().lazy.compactMap { $0.object as? Delegate }.first
    }

    /// Adds `delegate` as the forward delegate, held strongly when
    /// `retainDelegate` is true, weakly otherwise. Cancel the token to
    /// remove exactly this delegate.
    public func installForwardDelegate(_ delegate: Delegate, retainDelegate: Bool) -> ForwardDelegateToken {
        let object = delegate as AnyObject
        forwardEntries.removeAll { $0.object == nil || $0.object === object }
        nextEntryID += 1
        let id = nextEntryID
        forwardEntries.append(ForwardEntry(id: id, weakObject: object, strongObject: retainDelegate ? object : nil))
        return ForwardDelegateToken { [weak self] in self?.forwardEntries.removeAll { $0.id == id } }
    }

    /// Every call of a method without a result, before the forward delegate runs.
    public var sentMessage: Observable<Message> { sent.subscribe() }
    /// Every call of a method without a result, after the forward delegate ran.
    public var methodInvoked: Observable<Message> { invoked.subscribe() }

    /// Subscribes to `methodInvoked` through `transform`, which picks and
    /// converts the messages a typed observable wants.
    public func methodInvoked<Output: Sendable>(_ transform: @escaping @Sendable (Message) -> Output?) -> Observable<Output> {
        invoked.subscribe(transform)
    }

    /// The number of live subscriptions across every stream of this proxy.
    public var subscriberCount: Int {
        counters.reduce(0) { $0 + $1() }
    }

    /// For subclasses: reports `message` to `sentMessage`, calls the forward
    /// delegate through `call`, then reports it to `methodInvoked`.
    public func forward(_ message: Message, _ call: (Delegate) -> Void) {
        sent.send(message)
        if let delegate = forwardDelegate { call(delegate) }
        invoked.send(message)
    }

    /// For subclasses: makes a stream of their own complete with the others
    /// and count in `subscriberCount`.
    public func registerSubject(complete: @escaping () -> Void, count: @escaping () -> Int) {
        completions.append(complete)
        counters.append(count)
    }

    /// Completes every stream; later subscribers end at once.
    public func completeAll() {
        for complete in completions { complete() }
    }
}
