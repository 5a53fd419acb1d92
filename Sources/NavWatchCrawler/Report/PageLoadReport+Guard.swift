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

extension PageLoadReport {
    /// Records `live` and `facts` as `record(_:facts:now:guardVerdict:includingRequests:)`
    /// does, with what `privateAddressGuard` recorded since `mark` (taken
    /// when the load was asked for): its verdict on the page's last URL and,
    /// `includingRequests`, how many of the page's other requests it
    /// blocked. The one way a load through the guard is recorded, by the
    /// crawler and by `navwatch URL`.
    package mutating func record(_ live: PageLoadState, facts: PageFacts?, now: Duration,
                                 guard privateAddressGuard: PrivateAddressGuard?, since mark: GuardMark?,
                                 includingRequests: Bool = true) {
        let lastURL = live.reportedState.lastURL
        record(live, facts: facts, now: now, guardVerdict: privateAddressGuard?.verdict(for: lastURL, since: mark),
               includingRequests: includingRequests)
        guard let privateAddressGuard, includingRequests else { return }
        resources.blocked = requests.filter { request in
            guard request.url != lastURL.absoluteString, let url = URL(string: request.url),
                  case .blocked? = privateAddressGuard.verdict(for: url, since: mark) else { return false }
            return true
        }.count
    }

    /// Completes a finished page's report once its late window has closed
    /// (`window`: the page as it then was, why and when the window closed):
    /// the page with every request, the window, and why it has no first
    /// contentful paint. `facts` are those read at the finish; `paint`,
    /// read after the window (`PageFacts.Paint.isReadAfter`), gives a first
    /// paint that came late. The guard's part is as in `record(_:facts:now:guard:since:includingRequests:)`.
    package mutating func recordClosedWindow(_ window: (state: PageLoadState, closedBy: LateInfo.ClosedBy, at: Duration),
                                             facts: PageFacts?, paint: PageFacts.Paint?,
                                             guard privateAddressGuard: PrivateAddressGuard?, since mark: GuardMark?) {
        var facts = facts
        if let painted = paint?.firstContentfulPaint { facts?.firstContentfulPaint = painted }
        record(window.state, facts: facts, now: window.at, guard: privateAddressGuard, since: mark)
        recordLateWindow(of: window.state, closedBy: window.closedBy, at: window.at)
        recordPaint(paint, closedBy: window.closedBy)
    }
}
