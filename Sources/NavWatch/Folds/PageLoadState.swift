import Foundation

/// How one page load ended.
public enum PageLoadOutcome: Sendable, Hashable {
    /// The page finished. `response` is its main response (nil when the
    /// navigation never received one, as for `about:blank`); `title` is the
    /// document's title at its `load` event, nil when it has none.
    case finished(Navigation, response: NavigationResponse?, title: String?)
    /// The navigation failed; `response` is set when it had committed.
    case failed(Navigation, NavigationError, response: NavigationResponse?)

    /// The navigation that ended, however it ended.
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
/// - Resources are the view's, not a navigation's: the main resource, and
///   every resource that starts once this navigation has committed, count as
///   this navigation's. One that starts before the commit is the previous
///   document's, which is still shown (its timers may fetch while this
///   navigation waits for its answer). Requests keep being tracked after the
///   end (WebKit may report a resource's end later, and a finished page may
///   start more), so `pendingRequests` says what is still on the network for
///   as long as events are applied.
/// - The main resource is the first one WebKit marks as the main resource;
///   its redirect hops are `redirects`, each with the status of its answer.
/// - A failed resource counts as failed once (WebKit reports `finished` after
///   `failed` too).
/// - The title is the one the view reports between the commit and the end;
///   the view reports a document's title before its finish.
/// - Console messages and page errors are this navigation's when the view
///   attributed them to it (they arrived while its document was shown),
///   also after the end, for as long as events are applied.
/// - The web process terminating between the start and the end is recorded;
///   the failure that ends the navigation follows it. Before the start it is
///   not: the view issues the load again in a new process.
/// - `.closed` ends a navigation still running as `cancelled` (a view reports
///   that failure itself first; the fold does not rely on it).
public struct PageLoadState: Sendable, Hashable {
    /// How far a navigation got, in the order it gets there (`Comparable`
    /// in that order); `finished` and `failed` are the ends. Codable as its
    /// name, as reports write it (`"committed"`).
    public enum Stage: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
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

        /// Whether `lhs` comes before `rhs` in a navigation.
        public static func < (lhs: Stage, rhs: Stage) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// One hop of a redirect chain.
    public struct Redirect: Sendable, Hashable {
        /// The URL that answered with a redirect.
        public var url: URL
        /// The status of that answer (301, 302, ...).
        public var status: Int
        /// The headers of that answer.
        public var headers: [HTTPHeader] = []
        /// When the answer came, as given to `apply(_:at:)`.
        public var at: Duration?
    }

    /// One request the page made, as its resource events told it.
    public struct Request: Sendable, Hashable {
        /// The view's id of the request: the `id` of its `ResourceEvent`s.
        public let id: UInt64
        /// The URL it was first made for.
        public let requestedURL: URL
        /// The URL it ended at, after its redirects.
        public fileprivate(set) var url: URL
        /// The request's method (`GET`, `POST`, ...), when WebKit said.
        public let method: String?
        /// Whether WebKit marked it as a main resource: a page's document, not
        /// one of its subresources.
        public let isMainResource: Bool
        /// The headers it was made with, as WebKit reported them at its start
        /// (the network layer adds some later; see `ResourceEvent.started`).
        public let requestHeaders: [HTTPHeader]
        /// Each redirect it followed, in order.
        public fileprivate(set) var redirects: [Redirect] = []
        /// The final response's status; nil until it finished, 0 when it had none.
        public fileprivate(set) var status: Int?
        /// The final response's MIME type; nil until it finished, or when it had none.
        public fileprivate(set) var mimeType: String?
        /// The final response's headers; empty until it finished.
        public fileprivate(set) var responseHeaders: [HTTPHeader] = []
        /// Why it failed; nil unless it did. A failed request has ended too.
        public fileprivate(set) var error: NavigationError?
        /// When it started and ended, as given to `apply(_:at:)`.
        public let startedAt: Duration?
        /// When it finished or failed, as given to `apply(_:at:)`; nil while it runs.
        public fileprivate(set) var endedAt: Duration?
        /// Whether it has finished or failed. Its end is taken once: later events
        /// of the same request change nothing.
        public fileprivate(set) var isEnded = false
        /// Whether it started after the navigation ended.
        public let startedAfterEnd: Bool

        /// Takes `response` (a navigation's committed one) as this request's
        /// answer when its own end has not been reported yet.
        mutating func complete(with response: NavigationResponse) {
            guard !isEnded else { return }
            status = response.statusCode
            mimeType = response.mimeType
            responseHeaders = response.headers
            isEnded = true
        }
    }

    /// The navigation this state follows; the navigation events of other
    /// navigations change nothing.
    public let navigation: Navigation
    /// How far the navigation has got; it no longer changes once it is
    /// `finished` or `failed`.
    public private(set) var stage: Stage = .requested
    /// When it committed and when it ended, as given to `apply(_:at:)`.
    public private(set) var committedAt: Duration?
    /// When it ended, as given to `apply(_:at:)`; nil until it has.
    public private(set) var endedAt: Duration?
    /// The state as the terminal event left it, before anything applied
    /// after it (late request ends, requests the finished page started);
    /// nil until it has ended.
    public var atEnd: PageLoadState? {
        if case .state(let state)? = endSnapshot { return state }
        return nil
    }
    private var endSnapshot: Snapshot?
    private indirect enum Snapshot: Sendable, Hashable { case state(PageLoadState) }
    /// The stage reached before the end (the stage a timed-out navigation was
    /// stuck in); `.requested` until it has ended.
    public private(set) var lastStageBeforeEnd: Stage = .requested
    /// The main response, once committed.
    public private(set) var response: NavigationResponse?
    /// The main resource's redirect hops.
    public var redirects: [Redirect] {
        mainResourceID.flatMap { requestIndex[$0] }.map { requests[$0].redirects } ?? []
    }
    /// The document's title as the view reported it between the commit and the
    /// end; nil when it reported none.
    public private(set) var title: String?
    /// Why it failed, once it has.
    public private(set) var error: NavigationError?
    /// The main response, when it became a download.
    public private(set) var download: Download?
    /// Set when the web process went away between the start and the end.
    public private(set) var webProcessTermination: WebProcessTerminationReason?
    /// Resources started before the end, the main resource included.
    public private(set) var resourceCount = 0
    /// Of those, the ones that failed before the end.
    public private(set) var failedResourceCount = 0
    /// The document's console messages, in order: the first
    /// `WebView.retainedConsoleEntries`; `consoleCounts` counts them all.
    public private(set) var consoleMessages: [ConsoleMessage] = []
    /// When each of `consoleMessages` arrived, as given to `apply(_:at:)`:
    /// one time per message, in the same order.
    public private(set) var consoleMessageTimes: [Duration?] = []
    /// How many console messages the document logged, by level.
    public private(set) var consoleCounts: [ConsoleMessage.Level: Int] = [:]
    /// The document's uncaught errors and unhandled rejections, in order: the
    /// first `WebView.retainedConsoleEntries`; `pageErrorCount` counts them all.
    public private(set) var pageErrors: [PageError] = []
    /// When each of `pageErrors` arrived, as given to `apply(_:at:)`: one
    /// time per error, in the same order.
    public private(set) var pageErrorTimes: [Duration?] = []
    /// How many uncaught errors and unhandled rejections the document had, all
    /// of them: `pageErrors` keeps only the first ones.
    public private(set) var pageErrorCount = 0
    /// The JavaScript dialogs the document opened, with their answers, in
    /// order: those after the commit (a dialog belongs to the document
    /// shown), the first `WebView.retainedConsoleEntries`.
    public private(set) var dialogs: [ScriptDialog] = []
    /// Every request of this navigation (the rules above), in the order they
    /// started: also those the page started after the end.
    public private(set) var requests: [Request] = []
    private var requestIndex: [UInt64: Int] = [:]
    /// The id of the main resource: the first request WebKit marked as the
    /// page's document.
    public private(set) var mainResourceID: UInt64?
    /// The ids of the requests not ended yet.
    private var pendingIDs: Set<UInt64> = []
    /// How many requests that started before the end have not ended yet.
    public private(set) var pendingBeforeEnd = 0

    /// Requests started and not ended yet, by resource id, at their current URL.
    public var pendingRequests: [UInt64: URL] {
        Dictionary(uniqueKeysWithValues: pendingIDs.map { ($0, requests[requestIndex[$0]!].url) })
    }

    /// The request whose resource id is `id`, if it is one of this
    /// navigation's.
    public func request(_ id: UInt64) -> Request? {
        requestIndex[id].map { requests[$0] }
    }

    /// Whether any request is still on the network.
    public var hasPendingRequests: Bool { !pendingIDs.isEmpty }

    /// The state a report describes: this one when the page finished (late
    /// request ends included), `atEnd` when it did not (what was pending
    /// when it failed included), this one while it runs.
    public var reportedState: PageLoadState {
        if case .finished = stage { return self }
        return atEnd ?? self
    }

    /// The main response's HTTP status; nil before the commit and for a
    /// response without one (a file, `about:blank`).
    public var httpStatus: Int? {
        response.flatMap { $0.statusCode > 0 ? $0.statusCode : nil }
    }

    /// The last URL the navigation reached: its response's, else the URL it
    /// failed at, else the one it was asked for.
    public var lastURL: URL {
        response?.url ?? error?.failingURL ?? navigation.url
    }

    /// Every request, in the order they started, as a report lists them: the
    /// main resource's answer is the committed response when WebKit has not
    /// reported the document's own end yet (it often reports it after the
    /// page's). For `atEnd` (a page that did not finish) these are the
    /// requests that started before the end; for a finished page also those
    /// it started after, for as long as events were applied.
    public var reportedRequests: [Request] {
        requests.map { request in
            guard request.id == mainResourceID, let response else { return request }
            var completed = request
            completed.complete(with: response)
            return completed
        }
    }

    /// The state of `navigation` before any event: `stage` is `requested`.
    /// Apply its view's events from before its load is asked for.
    public init(navigation: Navigation) {
        self.navigation = navigation
    }

    /// Whether the navigation has ended (`stage` is `finished` or `failed`).
    /// Requests go on being tracked after the end.
    public var isEnded: Bool { stage == .finished || stage == .failed }

    /// How it ended; nil until it has.
    public var outcome: PageLoadOutcome? {
        switch stage {
        case .finished: return .finished(navigation, response: response, title: title)
        case .failed: return error.map { .failed(navigation, $0, response: response) }
        default: return nil
        }
    }

    /// Applies the next event of the view. `time`, when given, is when it
    /// happened (on any clock the caller keeps); requests record it.
    public mutating func apply(_ event: WebViewEvent, at time: Duration? = nil) {
        let wasEnded = isEnded
        defer {
            if !wasEnded && isEnded {
                endedAt = time
                endSnapshot = .state(self)
            }
        }
        switch event {
        case .navigation(let navigationEvent):
            apply(navigationEvent)
            if committedAt == nil && stage == .committed { committedAt = time }
        case .resource(let resourceEvent): apply(resourceEvent, at: time)
        case .consoleMessage(let message):
            guard message.navigation?.id == navigation.id else { return }
            consoleCounts[message.level, default: 0] += 1
            if consoleMessages.count < WebView.retainedConsoleEntries {
                consoleMessages.append(message)
                consoleMessageTimes.append(time)
            }
        case .pageError(let error):
            guard error.navigation?.id == navigation.id else { return }
            pageErrorCount += 1
            if pageErrors.count < WebView.retainedConsoleEntries {
                pageErrors.append(error)
                pageErrorTimes.append(time)
            }
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
        if case .scriptDialog(let dialog) = event {
            if hasCommitted, dialogs.count < WebView.retainedConsoleEntries { dialogs.append(dialog) }
            return
        }
        guard !isEnded else { return }
        if case .webContentProcessDidTerminate(let reason) = event {
            if stage != .requested { webProcessTermination = reason }
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

    private mutating func end(request index: Int, at time: Duration?) {
        requests[index].endedAt = time
        requests[index].isEnded = true
        pendingIDs.remove(requests[index].id)
        if !requests[index].startedAfterEnd { pendingBeforeEnd -= 1 }
    }

    /// Whether the navigation's response committed (also when it has ended since).
    private var hasCommitted: Bool {
        (isEnded ? lastStageBeforeEnd : stage) == .committed
    }

    private mutating func end(_ final: Stage) {
        lastStageBeforeEnd = stage
        stage = final
    }

    private mutating func apply(_ event: ResourceEvent, at time: Duration?) {
        switch event {
        case .started(let id, let url, let method, let isMainResource, let headers):
            guard requestIndex[id] == nil, isMainResource || hasCommitted else { return }
            requestIndex[id] = requests.count
            requests.append(Request(id: id, requestedURL: url, url: url, method: method, isMainResource: isMainResource,
                                    requestHeaders: headers, startedAt: time, startedAfterEnd: isEnded))
            pendingIDs.insert(id)
            guard !isEnded else { return }
            pendingBeforeEnd += 1
            resourceCount += 1
            if isMainResource && mainResourceID == nil { mainResourceID = id }
        case .redirected(let id, let url, let status, let headers):
            guard let index = requestIndex[id], !requests[index].isEnded else { return }
            requests[index].redirects.append(Redirect(url: requests[index].url, status: status, headers: headers, at: time))
            requests[index].url = url
        case .finished(let id, _, let status, let mimeType, let headers):
            guard let index = requestIndex[id], !requests[index].isEnded else { return }
            requests[index].status = status
            requests[index].mimeType = mimeType
            requests[index].responseHeaders = headers
            end(request: index, at: time)
        case .failed(let id, _, let error):
            guard let index = requestIndex[id], !requests[index].isEnded else { return }
            requests[index].error = error
            end(request: index, at: time)
            if !isEnded { failedResourceCount += 1 }
        }
    }
}
