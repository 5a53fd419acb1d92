import WebKitThread

/// The deadlines of one view's navigations, and the check that recovers a
/// web process that does not answer a stop.
///
/// Each navigation gets one timer when it starts; `cancel(_:)` removes it
/// when the navigation ends. A timer that fires calls `onTimeout` on the
/// WebKit thread, with the navigation and the duration it was given.
@WebKitActor
final class NavigationTimeouts {
    private var timers: [UInt64: Task<Void, Never>] = [:]
    private var stalledCycleCheck: Task<Void, Never>?

    /// Whether `navigation` already has a timer.
    func has(_ navigation: Navigation) -> Bool {
        timers[navigation.id] != nil
    }

    /// Starts the timer of `navigation`.
    func start(_ navigation: Navigation, after timeout: Duration,
               onTimeout: @escaping @WebKitActor (Navigation, Duration) -> Void) {
        timers[navigation.id] = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            onTimeout(navigation, timeout)
        }
    }

    /// Stops the timer of navigation `id`, if it runs.
    func cancel(_ id: UInt64) {
        timers.removeValue(forKey: id)?.cancel()
    }

    /// After a grace second, calls `recover` unless cancelled first (or
    /// replaced by the next check): it decides whether the web process
    /// answered a stop.
    func checkStalledCycle(_ recover: @escaping @WebKitActor () -> Void) {
        stalledCycleCheck?.cancel()
        stalledCycleCheck = Task {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            recover()
        }
    }

    /// Stops every timer and the stalled-cycle check.
    func cancelAll() {
        for timer in timers.values { timer.cancel() }
        timers.removeAll()
        stalledCycleCheck?.cancel()
        stalledCycleCheck = nil
    }
}
