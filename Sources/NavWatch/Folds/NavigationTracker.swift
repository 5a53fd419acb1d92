import Foundation

/// A main-frame load signal from WebKit, converted from C.
package enum LoadSignal: Sendable, Equatable {
    /// `decide-policy` for a navigation action, as WebKit asks (before any answer).
    case navigationAsked
    /// `decide-policy` for a main-frame navigation action that was allowed.
    case navigationAllowed(url: URL)
    case started
    case redirected(uri: String?)
    case committed(uri: String?, response: NavigationResponse?)
    case finished
    case failed(uri: String?, domain: String, code: Int, message: String)
    case failedWithTLSErrors
    case webProcessTerminated(WebProcessTerminationReason)
    case uriChanged(String?)
    /// The back-forward list changed: an item was added, or only the current
    /// item moved; `uri` is the current item's.
    case historyChanged(itemAdded: Bool, uri: String?)
    /// The document fired `popstate` (navwatch's document script reports
    /// it); `uri` is the document's URL then.
    case popState(uri: String?)
}

/// Attributes WebKit's main-frame load signals to navigations and turns them
/// into `NavigationEvent`s, so that every navigation ends with exactly one
/// terminal event.
///
/// The rules, each from how WebKitGTK 4.1 behaves (NavWatch.docc/WebKitGTKBehaviour.md):
/// - A load the caller asks for is `requested` until WebKit's first
///   `started` after it asked about a navigation action (WebKit asks about
///   every load before it starts it); any `started`, `failed`, `committed`
///   or `finished` before that belongs to a cycle the replaced document
///   began (a script setting `location`, a meta refresh) and is dropped.
/// - Asking for a load while another navigation is unfinished ends the old
///   one at once as `cancelled`: WebKit either reports the old cycle's
///   failure late or, when the old load had not started, not at all.
/// - A `started` with no requested navigation is the page navigating; its URL
///   is the last allowed navigation action's (WebKit's URI still shows the
///   old page at that point).
/// - `failed` is terminal; the `finished` WebKit sends after it is dropped.
/// - A commit of `about:blank` for an http(s) navigation is WebKit refusing a
///   restricted port (it reports no failure): a provisional failure of kind
///   `blockedPort`.
/// - The web process terminating ends the unfinished navigation WebKit has
///   started as a failure of kind `webProcessCrashed`. A `requested` one
///   stays requested: the view issues it again in the new process.
/// - A URI change while no load cycle is open is a same-document navigation,
///   unless it returns to the URL the shown document had: that is WebKit
///   putting the URI back after a provisional load ended (stopped, timed out
///   or failed).
/// - Its kind comes from what arrived for its URL since the last URI change
///   or load signal: the back-forward list adding an item (push, or
///   fragment when `popstate` fired too), the current item moving (pop),
///   `popstate` alone (a fragment replacing the current entry,
///   `location.replace("#…")`), or nothing (replace). A change or
///   `popstate` for another URL (a push of the same URL, which changes no
///   URI) does not count.
package struct NavigationTracker {
    package struct Active: Sendable {
        package var navigation: Navigation
        /// `requested`, `provisional` or `committed`: an active navigation has not ended.
        package var stage: PageLoadState.Stage
        package var sawTLSFailure = false
        /// WebKit asked about a navigation action since the load was requested.
        var actionAsked = false
    }

    /// The unfinished navigation, if any.
    package private(set) var active: Active?
    /// The navigation whose document is shown (the last one that committed).
    package private(set) var document: Navigation?
    /// The view's last known non-empty URL.
    package private(set) var currentURL: URL?
    /// The URL of the shown document: its commit's, then its same-document navigations'.
    private var documentURL: URL?
    private var lastAllowedActionURL: URL?
    /// The back-forward list's last change since the last URI change or load
    /// signal: whether it added an item, and its current item's URI.
    private var historyChange: (itemAdded: Bool, uri: String?)?
    /// The URL of the document's last `popstate` since the last URI change or load signal.
    private var popStateURI: String??
    private let makeID: @Sendable () -> UInt64

    package init(makeID: @escaping @Sendable () -> UInt64) {
        self.makeID = makeID
    }

    /// Starts tracking a load the caller asked for. Returns the events that
    /// end the navigation it replaces, if one was unfinished.
    package mutating func request(url: URL, origin: Navigation.Origin) -> (Navigation, [NavigationEvent]) {
        let navigation = Navigation(id: makeID(), url: url, origin: origin)
        var events: [NavigationEvent] = []
        if let previous = active {
            events.append(Self.failure(previous, .navwatch(.cancelled, .superseded,
                "cancelled by a new load on the same view", url: previous.navigation.url)))
        }
        active = Active(navigation: navigation, stage: .requested)
        return (navigation, noting(events))
    }

    /// Ends the unfinished navigation `id` with `error`, if it is still
    /// unfinished. Used for timeouts, stops, a delegate's cancel and closing.
    package mutating func fail(navigationID id: UInt64, with error: NavigationError) -> [NavigationEvent] {
        guard let current = active, current.navigation.id == id else { return [] }
        active = nil
        return noting([Self.failure(current, error)])
    }

    /// Feeds one WebKit signal; returns the events it produces, in order.
    package mutating func handle(_ signal: LoadSignal) -> [NavigationEvent] {
        noting(attribute(signal))
    }

    /// The URLs of the last navigation's main resource (its redirects and
    /// failing URL included), from its start until the next one starts.
    package private(set) var mainResourceURLs: Set<URL> = []

    /// Keeps `mainResourceURLs` up to date with `events`; returns them.
    private mutating func noting(_ events: [NavigationEvent]) -> [NavigationEvent] {
        for event in events {
            switch event {
            case .didStartProvisionalNavigation(let navigation): mainResourceURLs = [navigation.url]
            case .didReceiveServerRedirect(_, let url): mainResourceURLs.insert(url)
            case .didCommit(_, let response): mainResourceURLs.insert(response.url)
            case .didFailProvisionalNavigation(_, let error), .didFail(_, let error):
                if let url = error.failingURL { mainResourceURLs.insert(url) }
            default: break
            }
        }
        return events
    }

    private mutating func attribute(_ signal: LoadSignal) -> [NavigationEvent] {
        switch signal {
        case .started, .committed, .finished, .failed:
            // A load's own history change is not a same-document navigation's.
            historyChange = nil
            popStateURI = nil
        default:
            break
        }
        switch signal {
        case .historyChanged(let itemAdded, let uri):
            historyChange = (itemAdded, uri)
            return []

        case .popState(let uri):
            popStateURI = .some(uri)
            return []

        case .navigationAsked:
            if active?.stage == .requested { active?.actionAsked = true }
            return []

        case .navigationAllowed(let url):
            lastAllowedActionURL = url
            return []

        case .started:
            if var current = active, current.stage == .requested {
                guard current.actionAsked else { return [] }  // the replaced document's navigation
                current.stage = .provisional
                active = current
                return [.didStartProvisionalNavigation(current.navigation)]
            }
            var events: [NavigationEvent] = []
            if let previous = active {
                events.append(Self.failure(previous, .navwatch(.cancelled, .superseded,
                    "cancelled by a navigation the page started", url: previous.navigation.url)))
            }
            let url = lastAllowedActionURL ?? currentURL ?? URL(string: "about:blank")!
            let navigation = Navigation(id: makeID(), url: url, origin: .page)
            active = Active(navigation: navigation, stage: .provisional)
            events.append(.didStartProvisionalNavigation(navigation))
            return events

        case .redirected(let uri):
            guard let current = active, current.stage == .provisional,
                  let uri, let url = URL(string: uri) else { return [] }
            return [.didReceiveServerRedirect(current.navigation, to: url)]

        case .committed(let uri, let response):
            guard var current = active, current.stage == .provisional else { return [] }
            let scheme = current.navigation.url.scheme?.lowercased()
            if uri == "about:blank", response == nil, scheme == "http" || scheme == "https" {
                active = nil
                return [.didFailProvisionalNavigation(current.navigation, .navwatch(.blockedPort, .blockedPort,
                    "not allowed to use a restricted network port", url: current.navigation.url))]
            }
            current.stage = .committed
            active = current
            document = current.navigation
            documentURL = uri.flatMap(URL.init(string:)) ?? current.navigation.url
            let committed = response ?? NavigationResponse(
                url: uri.flatMap(URL.init(string:)) ?? current.navigation.url, statusCode: 0, mimeType: nil,
                headers: [], expectedContentLength: nil, suggestedFilename: nil, canShowMIMEType: true)
            return [.didCommit(current.navigation, committed)]

        case .finished:
            guard let current = active, current.stage == .committed else { return [] }
            active = nil
            return [.didFinish(current.navigation)]

        case .failed(let uri, let domain, let code, let message):
            guard let current = active, current.stage != .requested else { return [] }
            active = nil
            let kind = NavigationError.classify(domain: domain, code: code, message: message,
                                                sawTLSFailure: current.sawTLSFailure)
            let error = NavigationError(kind: kind, domain: domain, code: code, message: message,
                                        failingURL: uri.flatMap(URL.init(string:)) ?? current.navigation.url)
            return [Self.failure(current, error)]

        case .failedWithTLSErrors:
            active?.sawTLSFailure = true
            return []

        case .webProcessTerminated(let reason):
            var events: [NavigationEvent] = [.webContentProcessDidTerminate(reason)]
            if let current = active, current.stage != .requested {
                active = nil
                let error: NavigationError = reason == .exceededMemoryLimit
                    ? .navwatch(.webProcessCrashed, .exceededMemoryLimit, "the web process used more memory than its limit",
                                url: current.navigation.url)
                    : .navwatch(.webProcessCrashed, .webProcessTerminated, "the web process terminated (\(reason))",
                                url: current.navigation.url)
                events.append(Self.failure(current, error))
            }
            return events

        case .uriChanged(let uri):
            let kind = sameDocumentKind(uri: uri)
            historyChange = nil
            popStateURI = nil
            guard let uri, !uri.isEmpty, let url = URL(string: uri) else { return [] }
            let previous = currentURL
            currentURL = url
            let cycleOpen = active.map { $0.stage != .committed } ?? false
            guard !cycleOpen, url != previous, url != documentURL, uri != "about:blank" else { return [] }
            documentURL = url
            return [.sameDocumentNavigation(SameDocumentNavigation(
                navigation: active?.navigation ?? document, url: url, kind: kind))]
        }
    }

    /// The kind of a same-document navigation to `uri`, whose URI change arrives now.
    private func sameDocumentKind(uri: String?) -> SameDocumentNavigation.Kind {
        let sawPopState = popStateURI.map { $0 == nil || $0 == uri } ?? false
        switch historyChange.flatMap({ $0.uri == nil || $0.uri == uri ? $0.itemAdded : nil }) {
        case true?: return sawPopState ? .fragment : .push
        case false?: return .pop
        case nil: return sawPopState ? .fragment : .replace
        }
    }

    private static func failure(_ active: Active, _ error: NavigationError) -> NavigationEvent {
        active.stage == .committed
            ? .didFail(active.navigation, error)
            : .didFailProvisionalNavigation(active.navigation, error)
    }
}
