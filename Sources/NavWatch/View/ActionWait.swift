import WebKitThread

/// One wait for what the page does after an action (a popup, a download):
/// its value once it came.
@WebKitActor
final class ActionWait<Value> {
    private var value: Value?
    private var continuation: CheckedContinuation<Void, Never>?
    private var isAbandoned = false

    var isFulfilled: Bool { value != nil }

    /// The first value counts.
    func fulfil(_ value: Value) {
        guard self.value == nil else { return }
        self.value = value
        continuation?.resume()
        continuation = nil
    }

    /// Ends the wait without a value (the view closed).
    func abandon() {
        isAbandoned = true
        continuation?.resume()
        continuation = nil
    }

    /// The value, once it came or at once if it has; nil when `limit` passed first.
    func value(within limit: Duration) async -> Value? {
        if value == nil && !isAbandoned {
            let timer = Task { @WebKitActor [weak self] in
                try? await Task.sleep(for: limit)
                self?.continuation?.resume()
                self?.continuation = nil
            }
            await withCheckedContinuation { continuation = $0 }
            timer.cancel()
        }
        return value
    }
}
