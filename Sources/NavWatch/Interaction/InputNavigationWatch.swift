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
/// - A form the input submitted is asked about only after the UI process
///   has seen the submission, which may come after that answer: the watch
///   then waits up to `startGrace` for the navigation to be asked for.
/// - A navigation started after the input is the input's. Otherwise, if the
///   page asked for main-frame navigations after the input, the watch waits
///   for one to start, for a same-document navigation, or for every one of
///   them to be refused; one that was allowed and did not start within
///   `startGrace` was a subframe's (WebKit asks about those too).
/// - The navigation's outcome is its `RunningFold`'s, from its start.
@WebKitActor
final class InputNavigationWatch {
    /// How long an allowed navigation action may take to start.
    static let startGrace: Duration = .seconds(1)

    private let fold: RunningFold
    private let asked: Int
    private let answered: Int
    private let refused: Int
    private unowned let view: WebView

    /// Starts watching `view`: call it before the input.
    init(view: WebView) {
        self.view = view
        asked = view.navigationActionsAsked
        answered = view.navigationActionsAnswered
        refused = view.navigationActionsRefused
        fold = view.foldNextNavigation()
    }

    func stop() {
        fold.stopFolding()
    }

    /// Follows what the input did, for at most `timeout` from now.
    ///
    /// - Parameter settled: answers once the page has handled the input.
    /// - Throws: `InteractionError.timedOut` when the page did not handle the
    ///   input, or the navigation it started did not start or end, in time;
    ///   `.script(.cancelled)` when the task is cancelled (the navigation goes on).
    func follow(timeout: Duration, input what: String,
                settled: @escaping @WebKitActor () async -> Bool) async throws(InteractionError) -> PageLoadOutcome? {
        defer { stop() }
        let deadline = ContinuousClock.now + timeout
        var isSettled = false, submitted = false
        let settling = Task { @WebKitActor [fold] in
            submitted = await settled()
            isSettled = true
            fold.stopWaiting()
        }
        defer { settling.cancel() }
        func wait(for awaited: String, until: ContinuousClock.Instant? = nil) async throws(InteractionError) {
            if Task.isCancelled { throw .script(.cancelled) }
            if fold.hasEnded { throw .script(.viewClosed) }
            guard ContinuousClock.now < deadline else { throw .timedOut(waitingFor: awaited, after: timeout) }
            let fold = self.fold
            await withTaskCancellationHandler {
                await fold.waitForChange(deadline: min(until ?? deadline, deadline))
            } onCancel: {
                Task { @WebKitActor in fold.stopWaiting() }
            }
        }
        while !isSettled, !fold.hasStarted {
            try await wait(for: "the page to handle \(what)")
        }
        var allAnsweredAt: ContinuousClock.Instant?, submittedAt: ContinuousClock.Instant?
        while !fold.hasStarted {
            let askedSince = view.navigationActionsAsked - asked
            if askedSince == 0, submitted, !fold.sawSameDocumentNavigation {
                let since = submittedAt ?? .now
                submittedAt = since
                if ContinuousClock.now >= since + Self.startGrace { return nil }
                try await wait(for: "the navigation \(what) started", until: since + Self.startGrace)
                continue
            }
            if askedSince == 0 || view.navigationActionsRefused - refused == askedSince || fold.sawSameDocumentNavigation {
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
        while true {
            if let outcome = fold.state.outcome { return outcome }
            try await wait(for: "the end of the navigation \(what) started")
        }
    }
}
