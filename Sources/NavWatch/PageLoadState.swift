import Foundation

/// How one page load ended.
public enum PageLoadOutcome: Sendable, Hashable {
    /// The page finished. `response` is its main response (nil when the
    /// navigation never received one, as for `about:blank`); `title` is the
    /// document's title at its `load` event, nil when it has none.
    case finished(Navigation, response: NavigationResponse?, title: String?)
    /// The navigation failed; `response` is set when it had committed.
    case failed(Navigation, NavigationError, response: NavigationResponse?)

    public var navigation: Navigation {
        switch self {
        case .finished(let navigation, _, _), .failed(let navigation, _, _): return navigation
        }
    }
}

/// How one navigation is going: its events folded into the answers every
/// consumer asks for (the stage it reached, its main response and redirect
/// hops, the requests still pending, the title, how it ended).
///
/// A pure value: feed it a view's events in order with `apply(_:)`, starting
/// before the navigation's load is asked for (or at its start, for a
/// navigation the page began). The rules:
/// - Navigation events count only when they are this navigation's; the
///   first terminal one ends it (`isEnded`), and later ones change nothing.
/// - Resources are the view's, not a navigation's: every resource that
///   starts before the end counts as this navigation's. Requests keep being
///   tracked after the end (WebKit may report a resource's end later, and a
///   finished page may start more), so `pendingRequests` says what is still
///   on the network for as long as events are applied.
/// - The main resource is the first one WebKit marks as the main resource;
///   its redirect hops are `redirects`, each with the status of its answer.
/// - A failed resource counts as failed once (WebKit reports `finished` after
///   `failed` too).
/// - The title is the one the view reports between the commit and the end;
///   the view reports a document's title before its finish.
/// - The web process terminating before the end is recorded; the failure
///   that ends the navigation follows it.
/// - `.closed` ends a navigation still running as `cancelled` (a view reports
///   that failure itself first; the fold does not rely on it).
public struct PageLoadState: Sendable, Hashable {
    public enum Stage: Sendable, Hashable, Comparable {
        /// Asked for; WebKit has not started it yet.
        case requested
        /// Started, no response committed yet.
        case provisional
        /// The main response committed; the page is loading.
        case committed
        /// Ended with `didFinish`.
        case finished
        /// Ended with a failure.
        case failed
    }

    /// One hop of the main resource's redirect chain.
    public struct Redirect: Sendable, Hashable {
        /// The URL that answered with a redirect.
        public var url: URL
        /// The status of that answer (301, 302, ...).
        public var status: Int
    }

    public let navigation: Navigation
    public private(set) var stage: Stage = .requested
    /// The stage reached before the end (the stage a timed-out navigation was
    /// stuck in); `.requested` until it has ended.
    public private(set) var lastStageBeforeEnd: Stage = .requested
    /// The main response, once committed.
    public private(set) var response: NavigationResponse?
    public private(set) var redirects: [Redirect] = []
    public private(set) var title: String?
    /// Why it failed, once it has.
    public private(set) var error: NavigationError?
    /// The main response, when it became a download.
    public private(set) var download: Download?
    /// Set when the web process went away before the end.
    public private(set) var webProcessTermination: WebProcessTerminationReason?
    /// Resources started before the end, the main resource included.
    public private(set) var resourceCount = 0
    /// Of those, the ones that failed before the end.
    public private(set) var failedResourceCount = 0
    /// Requests started and not ended yet, by resource id, at their current
    /// URL: also those the page started after the end.
    public private(set) var pendingRequests: [UInt64: URL] = [:]
    private var mainResource: UInt64?

    public init(navigation: Navigation) {
        self.navigation = navigation
    }

    public var isEnded: Bool { stage == .finished || stage == .failed }

    /// How it ended; nil until it has.
    public var outcome: PageLoadOutcome? {
        switch stage {
        case .finished: return .finished(navigation, response: response, title: title)
        case .failed: return error.map { .failed(navigation, $0, response: response) }
        default: return nil
        }
    }

    /// Applies the next event of the view.
    public mutating func apply(_ event: WebViewEvent) {
        switch event {
        case .navigation(let navigationEvent): apply(navigationEvent)
        case .resource(let resourceEvent): apply(resourceEvent)
        case .propertyChange(.title(let value)):
            if stage == .committed { title = value }
        case .closed:
            // The view ends a running navigation before it closes; this is the rule for the fold alone.
            if !isEnded {
                error = .viewClosed(url: navigation.url)
                end(.failed)
            }
        case .propertyChange:
            break
        }
    }

    private mutating func apply(_ event: NavigationEvent) {
        guard !isEnded else { return }
        if case .webContentProcessDidTerminate(let reason) = event {
            webProcessTermination = reason
            return
        }
        guard event.navigation?.id == navigation.id else { return }
        switch event {
        case .didStartProvisionalNavigation:
            stage = .provisional
        case .didCommit(_, let committed):
            stage = .committed
            response = committed
        case .didFinish:
            end(.finished)
        case .didFailProvisionalNavigation(_, let failure), .didFail(_, let failure):
            error = failure
            end(.failed)
        case .download(let converted):
            download = converted
        case .didReceiveServerRedirect, .sameDocumentNavigation, .webContentProcessDidTerminate,
             .newWindowRequest, .scriptDialog:
            break
        }
    }

    private mutating func end(_ final: Stage) {
        lastStageBeforeEnd = stage
        stage = final
    }

    private mutating func apply(_ event: ResourceEvent) {
        switch event {
        case .started(let id, let url, _, let isMainResource):
            pendingRequests[id] = url
            guard !isEnded else { return }
            resourceCount += 1
            if isMainResource && mainResource == nil { mainResource = id }
        case .redirected(let id, let url, let status):
            guard let from = pendingRequests[id] else { return }
            if id == mainResource && !isEnded { redirects.append(Redirect(url: from, status: status)) }
            pendingRequests[id] = url
        case .finished(let id, _, _, _):
            pendingRequests.removeValue(forKey: id)
        case .failed(let id, _, _):
            if pendingRequests.removeValue(forKey: id) != nil && !isEnded { failedResourceCount += 1 }
        }
    }
}
