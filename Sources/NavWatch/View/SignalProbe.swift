import WebKitThread

/// The bridge benchmark's hook (`navwatch-bench bridge`), kept off `WebView`:
/// with `onSignal` set, every view calls it on the WebKit thread with each
/// navigation event, just before its delegate gets it, and the
/// `nw_monotonic_ns()` time its WebKit signal reached the shim. Events
/// navwatch makes itself (timeouts, cancellations) are not passed. Not for
/// tests or products: one subscriber at a time, for the whole process.
@WebKitActor
package enum SignalProbe {
    /// Called with each navigation event a WebKit signal brought; nil (the default) calls nothing.
    package static var onSignal: ((NavigationEvent, UInt64) -> Void)?
}
