import Foundation
import NavWatch

/// Which failed loads a crawl tries again, and when.
///
/// Transient: timeouts, crashes (but not a web process ended for using
/// more memory than its limit), connection resets, cancellations navwatch
/// did not ask for (WebKit's own), 5xx and 429. Each is tried again up to
/// `retries` times, after an exponential backoff from `backoff` with up to
/// 50 % jitter, and never sooner than a `Retry-After` the server asked for
/// (capped at five minutes). Pure: no I/O.
struct RetryPolicy: Sendable {
    var retries: Int
    var backoff: Duration

    /// Whether `report` (of the attempt numbered `report.attempts`) is tried again.
    func retries(_ report: PageLoadReport) -> Bool {
        isTransient(report) && report.attempts <= retries
    }

    /// Whether `report` failed in a way that may not happen again.
    func isTransient(_ report: PageLoadReport) -> Bool {
        switch report.outcome {
        case .timeout: return true
        case .crashed:
            // A page over the web process's memory limit is over it again.
            return !(report.error?.domain == NavigationError.navwatchDomain
                     && report.error?.code == NavigationError.NavwatchCode.exceededMemoryLimit.rawValue)
        case .failed:
            // A cancellation navwatch did not ask for (WebKit's own) is never a
            // page's outcome: the page is loaded again.
            return report.error?.kind == .connectionReset || report.error?.kind == .cancelled
        case .httpError: return (report.status ?? 0) >= 500 || report.status == 429
        default: return false
        }
    }

    /// Seconds to wait before attempt `attempt + 1`.
    func delay(attempt: Int, retryAfter: Double?) -> Double {
        let exponential = backoff.seconds * pow(2, Double(max(0, attempt - 1)))
        let jittered = exponential * (1 + Double.random(in: 0..<0.5))
        return min(300, max(jittered, retryAfter ?? 0))
    }
}
