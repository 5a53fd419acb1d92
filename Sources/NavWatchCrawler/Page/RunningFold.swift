import Foundation
import NavWatch
import NavWatchRx

/// Folds a view's events into one navigation's `PageLoadState` as they
/// arrive, in a task of its own, so that its owner can wait for a condition
/// (the end, the requests settling) while doing other work on the page.
///
/// Events are applied in order, each at the time it arrives on `clock`,
/// relative to `start`. `wait(until:deadline:)` returns once the condition
/// holds, the deadline passes or the events end; `stop()` ends the folding
/// and returns the state. Everything happens on the WebKit thread.
@WebKitActor
final class RunningFold {
    private(set) var state: PageLoadState
    private var task: Task<Void, Never>?
    private var eventsEnded = false
    private var waiter: (condition: (PageLoadState) -> Bool, continuation: CheckedContinuation<Void, Never>)?
    private let clock = ContinuousClock()

    init(navigation: Navigation, events: Observable<WebViewEvent>, start: ContinuousClock.Instant) {
        state = PageLoadState(navigation: navigation)
        task = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.apply(event, at: ContinuousClock.now - start)
            }
            self?.eventsEnded = true
            self?.resume()
        }
    }

    /// Returns when `condition` holds for the state, at `deadline`, or when
    /// the events have ended (the view closed).
    func wait(until condition: @escaping (PageLoadState) -> Bool, deadline: ContinuousClock.Instant? = nil) async {
        guard !condition(state), !eventsEnded else { return }
        precondition(waiter == nil, "RunningFold has one waiter at a time")
        let timer = deadline.map { deadline in
            Task { [weak self] in
                guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                self?.resume()
            }
        }
        await withCheckedContinuation { waiter = (condition, $0) }
        timer?.cancel()
    }

    /// Stops folding and returns the state as it is.
    func stop() -> PageLoadState {
        task?.cancel()
        task = nil
        resume()
        return state
    }

    private func apply(_ event: WebViewEvent, at time: Duration) {
        state.apply(event, at: time)
        if let waiter, waiter.condition(state) { resume() }
    }

    private func resume() {
        let continuation = waiter?.continuation
        waiter = nil
        continuation?.resume()
    }
}
