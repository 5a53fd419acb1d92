import Foundation
import WebKitThread

/// Folds one navigation's events into its `PageLoadState` the moment the
/// view emits them, so that its owner can wait for a condition (the end, the
/// requests settling) while doing other work on the page.
///
/// - A fold is made by the view, so that none of its navigation's events is
///   missed: `WebView.loadFolding(_:timeout:start:)` asks for a load and
///   folds it; `WebView.foldNextNavigation(start:)` folds whichever
///   navigation starts next (what an input did), from its start.
/// - Each event is applied right after the view's delegate got it, at the
///   time the view emitted it (`WebView.eventInstant`) relative to `start`.
/// - `wait(until:deadline:)` returns once the condition holds, the deadline
///   passes, the view closes or goes away, or `stopWaiting()` is called.
///   One caller waits at a time; cancelling the waiting task does not end
///   the wait (stop the view, and the navigation ends).
/// - Folding goes on until `stop()`, the view closing, or the fold being
///   released. Everything happens on the WebKit thread.
///
/// `rx.pageLoad`, input that navigates, the crawler's page loader and late
/// window, and the command line's watcher all fold with it.
@WebKitActor
package final class RunningFold {
    private var folded: PageLoadState?
    /// When the last event of one of the navigation's own requests arrived
    /// (one the state tracks), relative to `start`; nil before the first.
    package private(set) var lastOwnResourceEventAt: Duration?
    /// Whether another navigation committed in the view after this one ended:
    /// the view has left this navigation's page.
    package private(set) var otherNavigationCommitted = false
    /// For a fold of the next navigation: whether the view made a
    /// same-document navigation before any navigation started.
    package private(set) var sawSameDocumentNavigation = false
    /// Whether the view has closed or gone away: no event will come.
    package private(set) var hasEnded = false
    /// Set by `nextLoadRequested()`: a main resource that starts from then
    /// on is the next navigation's.
    private var nextLoadWasRequested = false
    private let start: ContinuousClock.Instant
    private weak var view: WebView?
    private var waiter: (condition: () -> Bool, continuation: CheckedContinuation<Void, Never>)?

    /// Folds `navigation`'s events (nil: the next navigation that starts)
    /// from now on, as `view` emits them.
    init(view: WebView, navigation: Navigation?, start: ContinuousClock.Instant) {
        self.view = view
        self.start = start
        folded = navigation.map(PageLoadState.init(navigation:))
        view.runningFolds[ObjectIdentifier(self)] = .init(fold: self)
    }

    isolated deinit {
        view?.runningFolds[ObjectIdentifier(self)] = nil
    }

    /// The navigation's state so far. A fold of the next navigation has one
    /// once a navigation has started (`hasStarted`).
    package var state: PageLoadState {
        guard let folded else { preconditionFailure("RunningFold.state read before its navigation started") }
        return folded
    }

    /// Whether the navigation folded has started (always, for a fold of a load).
    package var hasStarted: Bool { folded != nil }

    /// Returns when `condition` holds for the state, at `deadline`, when the
    /// view has closed or gone away, or when `stopWaiting()` is called.
    /// A fold of the next navigation waits for one to start first.
    package func wait(until condition: @escaping (PageLoadState) -> Bool,
                      deadline: ContinuousClock.Instant? = nil) async {
        if let folded, condition(folded) { return }
        await wait(for: { [unowned self] in self.folded.map(condition) ?? false }, deadline: deadline)
    }

    /// Returns after the next event or change of the view's that a wait
    /// depends on (`viewChanged()`), at `deadline`, or as `wait(until:)` does.
    package func waitForChange(deadline: ContinuousClock.Instant? = nil) async {
        await wait(for: { true }, deadline: deadline)
    }

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
        stopFolding()
        return state
    }

    /// Stops folding, whether or not a navigation started; a wait returns.
    package func stopFolding() {
        view?.runningFolds[ObjectIdentifier(self)] = nil
        view = nil
        resume()
    }

    // MARK: From the view

    /// Applies `event`, which the view emitted at `instant`.
    func receive(_ event: WebViewEvent, at instant: ContinuousClock.Instant) {
        let time = instant - start
        if folded == nil {
            switch event {
            case .navigation(.didStartProvisionalNavigation(let navigation)):
                folded = PageLoadState(navigation: navigation)
            case .navigation(.sameDocumentNavigation):
                sawSameDocumentNavigation = true
            default:
                break
            }
        }
        if folded != nil { apply(event, at: time) }
        if case .closed = event { hasEnded = true }
        recheck()
    }

    /// Something a wait may depend on changed in the view (a navigation
    /// action was answered).
    func viewChanged() {
        recheck()
    }

    /// The view went away without closing.
    func viewEnded() {
        hasEnded = true
        resume()
    }

    private func apply(_ event: WebViewEvent, at time: Duration) {
        switch event {
        case .resource(let resource):
            if case .started(_, _, _, let isMainResource, _) = resource,
               otherNavigationCommitted || (nextLoadWasRequested && isMainResource) { break }
            folded?.apply(event, at: time)
            if folded?.request(resource.id) != nil { lastOwnResourceEventAt = time }
        case .navigation(.didCommit(let navigation, _)) where state.isEnded && navigation.id != state.navigation.id:
            otherNavigationCommitted = true
        default:
            folded?.apply(event, at: time)
        }
    }

    private func wait(for condition: @escaping () -> Bool, deadline: ContinuousClock.Instant?) async {
        guard !hasEnded, view != nil else { return }
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

    private func recheck() {
        if hasEnded { resume() } else if let waiter, waiter.condition() { resume() }
    }

    private func resume() {
        let continuation = waiter?.continuation
        waiter = nil
        continuation?.resume()
    }
}

extension WebView {
    /// A fold the view feeds, held weakly: a fold nobody holds stops.
    struct RunningFoldEntry {
        weak var fold: RunningFold?
    }

    /// Loads `url` (as `load(_:timeout:)`) and returns the fold of its
    /// navigation, which sees every one of its events; times are relative
    /// to `start`.
    ///
    /// - Throws: as `load(_:timeout:)`, when the load cannot start.
    package func loadFolding(_ url: URL, timeout: Duration? = nil,
                             start: ContinuousClock.Instant = .now) throws -> RunningFold {
        var fold: RunningFold?
        _ = try load(url, timeout: timeout) { navigation in
            fold = RunningFold(view: self, navigation: navigation, start: start)
        }
        return fold!
    }

    /// Returns a fold of `navigation`, which has not started: a navigation
    /// the page starts, called from the delegate's
    /// `didStartProvisionalNavigation` (the delegate gets each event before
    /// the folds), so that the fold sees its start.
    package func fold(_ navigation: Navigation, start: ContinuousClock.Instant = .now) -> RunningFold {
        RunningFold(view: self, navigation: navigation, start: start)
    }

    /// Returns a fold of the next navigation that starts in the view (one
    /// the page or an input starts), from its start; times are relative to
    /// `start`.
    package func foldNextNavigation(start: ContinuousClock.Instant = .now) -> RunningFold {
        RunningFold(view: self, navigation: nil, start: start)
    }
}
