import Foundation
import NavWatch

/// Folds a view's events into one navigation's `PageLoadState` as they
/// arrive, in a task of its own, so that its owner can wait for a condition
/// (the end, the requests settling) while doing other work on the page.
///
/// Events are applied in order, each at the time it arrives on the
/// continuous clock, relative to `start`. `wait(until:deadline:)` returns
/// once the condition holds, the deadline passes, the events end or
/// `stopWaiting()` is called; `stop()` ends the folding and returns the
/// state. Everything happens on the WebKit thread. `rx.pageLoad`, the
/// crawler's page loader and the command line's watcher all fold with it.
@WebKitActor
package final class RunningFold {
    package private(set) var state: PageLoadState
    /// When the last event of one of the navigation's own requests arrived
    /// (one the state tracks), relative to `start`; nil before the first.
    package private(set) var lastOwnResourceEventAt: Duration?
    /// Whether another navigation committed in the view after this one ended:
    /// the view has left this navigation's page.
    package private(set) var otherNavigationCommitted = false
    /// Set by `nextLoadRequested()`: a main resource that starts from then
    /// on is the next navigation's.
    private var nextLoadWasRequested = false
    private var task: Task<Void, Never>?
    private var eventsEnded = false
    private var waiter: (condition: (PageLoadState) -> Bool, continuation: CheckedContinuation<Void, Never>)?

    /// Starts folding `events`, which must have been subscribed before
    /// `navigation` was asked for, so that none of its events is missed.
    package init(navigation: Navigation, events: Observable<WebViewEvent>, start: ContinuousClock.Instant) {
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

    /// Returns when `condition` holds for the state, at `deadline`, when
    /// the events have ended (the view closed) or when `stopWaiting()` is
    /// called. One caller waits at a time.
    package func wait(until condition: @escaping (PageLoadState) -> Bool,
                      deadline: ContinuousClock.Instant? = nil) async {
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

    /// Whether the events have ended (the view closed).
    package var hasEnded: Bool { eventsEnded }

    /// The view is about to load another page: the main resource that
    /// starts from now on is that page's, and once another navigation has
    /// committed every request that starts is. Until then the document
    /// shown is still this navigation's, and so are the requests it starts.
    /// Requests already tracked still get their ends, and console messages
    /// and page errors still count when the view attributes them to this
    /// navigation.
    package func nextLoadRequested() {
        nextLoadWasRequested = true
    }

    /// Makes the current `wait` return now; folding goes on.
    package func stopWaiting() {
        resume()
    }

    /// Stops folding and returns the state as it is.
    package func stop() -> PageLoadState {
        task?.cancel()
        task = nil
        resume()
        return state
    }

    private func apply(_ event: WebViewEvent, at time: Duration) {
        switch event {
        case .resource(let resource):
            if case .started(_, _, _, let isMainResource, _) = resource,
               otherNavigationCommitted || (nextLoadWasRequested && isMainResource) { break }
            state.apply(event, at: time)
            if state.request(resource.id) != nil { lastOwnResourceEventAt = time }
        case .navigation(.didCommit(let navigation, _)) where state.isEnded && navigation.id != state.navigation.id:
            otherNavigationCommitted = true
        default:
            state.apply(event, at: time)
        }
        if let waiter, waiter.condition(state) { resume() }
    }

    private func resume() {
        let continuation = waiter?.continuation
        waiter = nil
        continuation?.resume()
    }
}
