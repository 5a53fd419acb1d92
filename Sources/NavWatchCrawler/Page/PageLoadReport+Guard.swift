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
    ///
    /// - Parameter viaTunnel: the request went through a `CONNECT` tunnel
    ///   whose refusal the client reports as an error of its own (the crawl's
    ///   plain HTTP client does so for every URL). For WebKit, false: it
    ///   shows the guard's answer to a plain-HTTP request as that response,
    ///   and its refusal of a tunnel (https) as a load interrupted by policy.
    ///   Any other answer or error is the server's or WebKit's own.
    package mutating func applyGuard(_ verdict: GuardVerdict?, at url: URL, viaTunnel: Bool = false) {
        guard let verdict else { return }
        let tunnelRefused = status == nil && (viaTunnel || error?.kind == NavigationError.Kind.policy.rawValue)
        switch verdict {
        case .blocked(let request):
            guard status == 403 || tunnelRefused else { return }
            outcome = .blocked
            skipReason = .privateAddress
            finalURL = Self.canonical(url)
            error = .init(NavigationError(kind: .policy, domain: "navwatch-guard", code: 0,
                                          message: "\(request.host) is at \(request.address) (\(request.kind))",
                                          failingURL: url))
        case .failed(let failure):
            guard status == 502 || tunnelRefused else { return }
            let kind = NavigationError.Kind(rawValue: failure.kind.rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            error = .init(NavigationError(kind: kind, domain: "navwatch-guard", code: 0,
                                          message: "cannot reach \(HostName.authority(failure.host, port: failure.port)) (\(failure.kind))",
                                          failingURL: url))
        }
        // The rest described the guard's own answer, not the page.
        status = nil
        mime = nil
        title = nil
        links = 0
        anchors = []
        timings = Timings()
        metrics = nil
    }
}
