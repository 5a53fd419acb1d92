import CNavShim
import Foundation
import NavWatchSupport

/// Each navigation's deadline, and the recovery of a web process that does
/// not answer: a timed-out navigation ends as `timeout` and is stopped; a
/// process that answers no stop within the grace period is replaced, and a
/// load it took with it is issued again.
extension WebView {
    func startTimeout(for navigation: Navigation, after timeout: Duration) {
        timeouts.start(navigation, after: timeout) { [weak self] navigation, timeout in
            self?.navigationTimedOut(navigation, after: timeout)
        }
    }

    func navigationTimedOut(_ navigation: Navigation, after timeout: Duration) {
        guard let shim, tracker.active?.navigation.id == navigation.id else { return }
        end(navigationID: navigation.id, with: .navwatch(.timeout, .timeout,
            "the navigation did not finish within \(timeout.seconds) s", url: navigation.url))
        nw_view_stop(shim)
        // A web process that answers a stop reports the stopped load's end or
        // starts the next load. One that reports neither for the grace period
        // while the view is still loading is hung (a script that never
        // returns; a commit it sent before it hung is no answer): replace it.
        // A load asked for meanwhile is issued again in the new process (see
        // `webProcessTerminated()`).
        let answersAtStop = stopAnswers
        timeouts.checkStalledCycle { [weak self] in
            guard let self, let shim = self.shim, self.isLoading, self.stopAnswers == answersAtStop else { return }
            nw_view_terminate_web_process(shim)
        }
    }

    /// After the web process went away: a load that WebKit had not started
    /// yet went with it, so it is issued again, in a new process, as the
    /// same navigation with the same deadline.
    func webProcessTerminated() {
        guard let active = tracker.active, active.stage == .requested,
              let requested = requestedLoad, requested.navigationID == active.navigation.id else { return }
        Task { [weak self] in  // not from inside WebKit's signal handler
            guard let self, let shim = self.shim, self.tracker.active?.navigation.id == requested.navigationID,
                  self.tracker.active?.stage == .requested else { return }
            requested.issue(shim)
        }
    }
}
