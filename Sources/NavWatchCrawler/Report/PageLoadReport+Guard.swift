import Foundation
import NavWatch
import NavWatchGuard

extension PageLoadReport {
    /// What the private-address guard answered in place of a server, for the
    /// last request of a page or check: the report of such an answer
    /// describes the guard's refusal, not a page.
    package enum GuardAnswer: Sendable, Hashable {
        /// The host resolved to a private address: the page is `blocked`.
        case refused(BlockedRequest)
        /// The host could not be reached (the name did not resolve, the
        /// connection was refused, timed out or reset): the page failed with
        /// that kind of error, not with the guard's own `502`.
        case unreachable(ProxyFailure)

        /// The guard's answer, when the answer a load or check got (`status`,
        /// or without one the error `errorKind`) was the guard's own; nil when
        /// it came from a server or the guard let the request through.
        ///
        /// - Parameter viaTunnel: the request went through a `CONNECT` tunnel
        ///   whose refusal the client reports as an error of its own (the crawl's
        ///   plain HTTP client does so for every URL). For WebKit, false: it
        ///   shows the guard's answer to a plain-HTTP request as that response,
        ///   and its refusal of a tunnel (https) as a load interrupted by policy.
        ///   Any other answer or error is the server's or WebKit's own.
        package init?(_ verdict: GuardVerdict?, status: Int?, errorKind: NavigationError.Kind?, viaTunnel: Bool) {
            let tunnelRefused = status == nil && (viaTunnel || errorKind == .policy)
            switch verdict {
            case .blocked(let request)? where status == 403 || tunnelRefused:
                self = .refused(request)
            case .failed(let failure)? where status == 502 || tunnelRefused:
                self = .unreachable(failure)
            default:
                return nil
            }
        }
    }

    /// Records the guard's `answer` to the request for `url`, the last one
    /// the page or check made: refused makes the page `blocked` (`skip_reason`
    /// `private-address`, final URL `url`); unreachable makes it `timeout` or
    /// `failed` with the error's kind. `answeredFrom` is the URL the guard's
    /// answer was shown for, when there was a response: an unreachable
    /// page's final URL. Status, MIME type, title, timings and metrics stay
    /// unset: they would describe the guard's answer, not the page.
    mutating func record(_ answer: GuardAnswer, at url: URL, answeredFrom: URL?) {
        switch answer {
        case .refused(let request):
            outcome = .blocked
            skipReason = .privateAddress
            finalURL = Self.canonical(url)
            error = .init(NavigationError(kind: .policy, domain: "navwatch-guard", code: 0,
                                          message: "\(request.host) is at \(request.address) (\(request.kind))",
                                          failingURL: url))
        case .unreachable(let failure):
            let kind = NavigationError.Kind(rawValue: failure.kind.rawValue) ?? .other
            outcome = kind == .timeout ? .timeout : .failed
            finalURL = answeredFrom.map(Self.canonical)
            error = .init(NavigationError(kind: kind, domain: "navwatch-guard", code: 0,
                                          message: "cannot reach \(HostName.authority(failure.host, port: failure.port)) (\(failure.kind))",
                                          failingURL: url))
        }
    }
}
