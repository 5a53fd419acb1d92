import Foundation
import WebKitThread

/// Watches a view from just before an input (a click, a key, a form
/// submission) until it knows what the input did to the main frame: nothing,
/// a same-document navigation, or a navigation, which it then follows to its
/// terminal event.
///
/// The rules:
/// - The input has been handled when the page's own `settled` script
///   answers (two tasks after the input event, so that a navigation the
///   input scheduled has been asked for), or when a navigation starts first.
/// - A navigation started after the input is the input's. Otherwise, if the
///   page asked for main-frame navigations after the input, the watch waits
///   for one to start, for a same-document navigation, or for every one of
///   them to be refused; one that was allowed and did not start within
///   `startGrace` was a subframe's (WebKit asks about those too).
/// - The navigation's outcome is `PageLoadState`'s fold of the events from its start.
@WebKitActor
final class InputNavigationWatch {
    /// How long an allowed navigation action may take to start.
    static let startGrace: Duration = .seconds(1)

    private var events: [WebViewEvent] = []
    private var waiter: CheckedContinuation<Void, Never>?
    private let asked: Int
    private let answered: Int
    private let refused: Int
    private unowned let view: WebView

    init(view: WebView) {
        self.view = view
        asked = view.navigationActionsAsked
        answered = view.navigationActionsAnswered
        refused = view.navigationActionsRefused
        view.inputWatches[ObjectIdentifier(self)] = self
    }

    func stop() {
        view.inputWatches[ObjectIdentifier(self)] = nil
        poke()
    }

    func record(_ event: WebViewEvent) {
        events.append(event)
        poke()
    }

    /// Wakes the wait, if any: something it depends on changed.
    func poke() {
        waiter?.resume()
        waiter = nil
    }

    /// Follows what the input did, for at most `timeout` from now.
    ///
    /// - Parameter settled: answers once the page has handled the input.
    /// - Throws: `InteractionError.timedOut` when the page did not handle the
    ///   input, or the navigation it started did not start or end, in time;
    ///   `.script(.cancelled)` when the task is cancelled (the navigation goes on).
    func follow(timeout: Duration, input what: String,
                settled: @escaping @WebKitActor () async -> Void) async throws(InteractionError) -> PageLoadOutcome? {
        defer { stop() }
        let deadline = ContinuousClock.now + timeout
        var isSettled = false
        let settling = Task { @WebKitActor in
            await settled()
            isSettled = true
            self.poke()
        }
        defer { settling.cancel() }
        func wait(for awaited: String, until: ContinuousClock.Instant? = nil) async throws(InteractionError) {
            if Task.isCancelled { throw .script(.cancelled) }
            guard ContinuousClock.now < deadline else { throw .timedOut(waitingFor: awaited, after: timeout) }
            await waitForChange(until: min(until ?? deadline, deadline))
        }
        while !isSettled, startIndex == nil {
            try await wait(for: "the page to handle \(what)")
        }
        var allAnsweredAt: ContinuousClock.Instant?
        while startIndex == nil {
            let askedSince = view.navigationActionsAsked - asked
            if askedSince == 0 || view.navigationActionsRefused - refused == askedSince || sawSameDocumentNavigation {
                return nil
            }
            if view.navigationActionsAnswered - answered == askedSince {
                let since = allAnsweredAt ?? .now
                allAnsweredAt = since
                if ContinuousClock.now >= since + Self.startGrace { return nil }
                try await wait(for: "the navigation \(what) started", until: since + Self.startGrace)
            } else {
                try await wait(for: "the navigation \(what) started")
            }
        }
        guard let startIndex, case .navigation(.didStartProvisionalNavigation(let navigation)) = events[startIndex] else {
            return nil
        }
        var state = PageLoadState(navigation: navigation)
        var applied = startIndex
        while true {
            while applied < events.count {
                state.apply(events[applied])
                applied += 1
            }
            if let outcome = state.outcome { return outcome }
            try await wait(for: "the end of the navigation \(what) started")
        }
    }

    private var startIndex: Int? {
        events.firstIndex { if case .navigation(.didStartProvisionalNavigation) = $0 { return true } else { return false } }
    }

    private var sawSameDocumentNavigation: Bool {
        events.contains { if case .navigation(.sameDocumentNavigation) = $0 { return true } else { return false } }
    }

    /// Returns after the next change, at `until`, or when the task is cancelled.
    private func waitForChange(until: ContinuousClock.Instant) async {
        let timer = Task { @WebKitActor [weak self] in
            try? await Task.sleep(until: until)
            self?.poke()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            Task { @WebKitActor [weak self] in self?.poke() }
        }
        timer.cancel()
    }
}
