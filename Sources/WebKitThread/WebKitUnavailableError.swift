/// WebKit could not be started in this process: there is no usable display,
/// or GTK could not initialise. Thrown by the first call that needs WebKit;
/// the process keeps running.
public struct WebKitUnavailableError: Error, CustomStringConvertible, Sendable, Equatable {
    /// One sentence that says what is missing.
    public let reason: String

    /// An error whose `reason` is one sentence that says what is missing.
    public init(reason: String) {
        self.reason = reason
    }

    public var description: String {
        "WebKit is unavailable: \(reason)"
    }
}
