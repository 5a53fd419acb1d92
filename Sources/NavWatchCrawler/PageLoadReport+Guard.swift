import Foundation
import NavWatch
import NavWatchGuard

extension PageLoadReport {
    /// Applies what the private-address guard answered for this page's last
    /// request, to `url` (after redirects): refused makes the page `blocked`
    /// (`skip_reason` `private-address`, no status); unreachable (the name
    /// did not resolve, the connection was refused, timed out or reset) makes
    /// it a failure of that kind instead of the guard's own `502`. A report
    /// whose answer came from a server, or that the guard let through, is
    /// left as it is.
    package mutating func applyGuard(_ verdict: GuardVerdict?, at url: URL) {
        guard let verdict else { return }
        switch verdict {
        case .blocked(let request):
            guard status == nil || status == 403 else { return }
            outcome = .blocked
            skipReason = .privateAddress
            finalURL = URLCanonicalizer.canonical(url)?.absoluteString ?? url.absoluteString
            error = .init(NavigationError(kind: .policy, domain: "navwatch-guard", code: 0,
                                          message: "\(request.host) is at \(request.address) (\(request.kind))",
                                          failingURL: url))
        case .failed(let failure):
            guard status == nil || status == 502 else { return }
            let kind = NavigationError.Kind(rawValue: failure.kind.rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            error = .init(NavigationError(kind: kind, domain: "navwatch-guard", code: 0,
                                          message: "cannot reach \(failure.host):\(failure.port) (\(failure.kind))",
                                          failingURL: url))
        }
        // The rest described the guard's own answer, not the page.
        status = nil
        mime = nil
        title = nil
        links = 0
        anchors = []
        timings = Timings()
    }
}
