import Foundation
import NavWatch
import NavWatchGuard

extension PageLoadReport {
    /// Fills the report from one page load: how it ended, its status, final
    /// URL and title, its timings, requests, resources, console and page
    /// errors, and what the page's facts say. The one way a load becomes a
    /// report: `navwatch crawl` and `navwatch URL --har` report the same load
    /// the same way.
    ///
    /// - A finished page is reported as `live` is now, with its requests'
    ///   late ends; one that did not finish as it was when it ended
    ///   (`atEnd`, what was pending then included).
    /// - The outcome: finished below 400 `ok`, from 400 `http-error`; a
    ///   failure `timeout` (with the stage it was stuck in and its pending
    ///   requests), `crashed`, `download` or `failed`; `failed` with a
    ///   `view-closed` error when the events ended without an end.
    /// - `facts` (read from a finished page) give the links' count, anchors,
    ///   Navigation Timing and the bytes transferred.
    /// - `now` is the time on the load's clock, for requests still pending.
    /// - Without `includingRequests`, the requests and the figures made from
    ///   them (`resources.by_type`, `from_cache`, third-party hosts) are left
    ///   as they were: the crawler's first look at a page whose late window
    ///   is still open needs only how it ended.
    ///
    /// The URL, depth, parent, attempts, start time and `fetchedAt` are the caller's.
    package mutating func record(_ live: PageLoadState, facts: PageFacts?, now: Duration,
                                 guardVerdict verdict: GuardVerdict? = nil, includingRequests: Bool = true) {
        let state = live.reportedState
        resources.count = state.requests.count
        resources.failed = state.requests.count { $0.error != nil }
        redirects = state.redirects.map { .init(url: $0.url.absoluteString, status: $0.status) }
        if let answer = GuardAnswer(verdict, status: state.response != nil ? state.httpStatus : nil,
                                    errorKind: state.error?.kind, viaTunnel: false) {
            record(answer, at: state.lastURL, answeredFrom: state.response?.url)
            // The guard's answer was a request of the page, and its bytes crossed the network.
            if let facts { resources.transferBytes = facts.transferBytes }
        } else {
            recordLoad(state, facts: facts)
        }
        if state.response != nil {  // a document was shown: its console and errors are known
            console = .init(errors: state.consoleCounts[.error] ?? 0, warnings: state.consoleCounts[.warning] ?? 0)
            pageErrors = zip(state.pageErrors, state.pageErrorTimes).prefix(Self.listedPageErrors).map(PageErrorInfo.init)
            pageErrorCount = state.pageErrorCount
            consoleMessages = zip(state.consoleMessages, state.consoleMessageTimes)
                .compactMap { message, time in ConsoleMessageInfo.Level(message.level).map { ($0, message, time) } }
                .prefix(Self.listedPageErrors)
                .map { level, message, time in
                    ConsoleMessageInfo(level: level, text: message.text, url: message.url?.absoluteString,
                                       line: message.line, time: time?.milliseconds.tenths)
                }
            dialogs = state.dialogs.isEmpty ? nil : state.dialogs.prefix(Self.listedPageErrors).map(DialogInfo.init)
        }
        guard includingRequests else { return }
        requests = RequestRecord.records(of: state, facts: facts, now: now)
        summariseRequests()
    }

    /// How the load of `state` ended, from the page (not the guard): its
    /// status, final URL, outcome and timings, and what `facts` say.
    private mutating func recordLoad(_ state: PageLoadState, facts: PageFacts?) {
        timings.commit = state.committedAt?.milliseconds.tenths
        if let response = state.response {
            status = state.httpStatus
            mime = response.mimeType
            finalURL = Self.canonical(response.url)
        }
        switch state.outcome {
        case .finished?:
            timings.finish = state.endedAt?.milliseconds.tenths
            outcome = Self.outcome(ofStatus: status ?? 0)
            // WebKit does not always report a title (a page with a module script, broken images and media
            // never did): the document's own, read with the facts, stands in.
            title = state.title ?? facts?.title
            if let facts { record(facts) }
        case .failed(_, let failure, _)?:
            error = .init(failure)
            switch failure.kind {
            case .timeout:
                outcome = .timeout
                timeout = .init(stage: min(state.lastStageBeforeEnd, .committed),
                                pendingRequests: state.pendingRequests.values.map(\.absoluteString).sorted())
            case .webProcessCrashed:
                outcome = .crashed
            default:
                outcome = state.download != nil ? .download : .failed
            }
        case nil:
            // The events ended without a `.closed` (the view went away).
            outcome = .failed
            error = .init(.viewClosed(url: state.navigation.url))
        }
    }

    /// Records the late window of a finished page (`live` as it was when the
    /// window closed, `closedAt` on its clock): what arrived after the end.
    /// The counts are of the first `WebView.retainedConsoleEntries` messages.
    package mutating func recordLateWindow(of live: PageLoadState, closedBy: LateInfo.ClosedBy, at closedAt: Duration) {
        guard let end = live.endedAt else { return }
        var late = LateInfo(windowMs: max(0, (closedAt - end).milliseconds).tenths, closedBy: closedBy)
        late.consoleErrors = zip(live.consoleMessages, live.consoleMessageTimes)
            .count { $0.0.level == .error && ($0.1 ?? .zero) > end }
        late.pageErrors = live.pageErrorTimes.count { ($0 ?? .zero) > end }
        late.failedRequests = live.requests.count { $0.error != nil && ($0.endedAt ?? .zero) > end }
        self.late = late
    }

    /// Says why a finished page has no first contentful paint, from how its
    /// late window closed and what was read after it (`paint`, nil when
    /// the page could not be read). A page the guard answered for has none to miss.
    package mutating func recordPaint(_ paint: PageFacts.Paint?, closedBy: LateInfo.ClosedBy) {
        guard wasAnswered, timings.firstContentfulPaint == nil, timings.firstContentfulPaintUnavailable != .noPaintEntries
        else { return }
        switch closedBy {
        case .quiet, .limit:
            timings.firstContentfulPaintUnavailable = paint != nil ? .noPaintInWindow : .noPaintBeforeViewClosed
        case .nextPage:
            timings.firstContentfulPaintUnavailable = .noPaintBeforeNextPage
        case .viewClosed:
            timings.firstContentfulPaintUnavailable = .noPaintBeforeViewClosed
        }
    }

    /// What a finished page's facts say.
    private mutating func record(_ facts: PageFacts) {
        links = facts.links.count
        anchors = facts.anchors
        timings.ttfb = facts.ttfb?.tenths
        timings.domContentLoaded = facts.domContentLoaded?.tenths
        timings.load = facts.load?.tenths
        timings.redirect = facts.redirect?.tenths
        timings.firstContentfulPaint = facts.firstContentfulPaint?.tenths
        // Why another paint is missing is known once the late window has closed (`recordPaint`).
        timings.firstContentfulPaintUnavailable = facts.firstContentfulPaint == nil && !facts.paintSupported
            ? .noPaintEntries : nil
        resources.transferBytes = facts.transferBytes
        metrics = PageMetrics(facts)
    }

    /// Per-type weights and third-party hosts from `requests`. A redirect
    /// counts as a request of the type it led to.
    mutating func summariseRequests() {
        var byType: [String: Resources.Weight] = [:]
        for request in requests {
            byType[request.type.rawValue, default: .init()].count += 1
            byType[request.type.rawValue, default: .init()].bytes += request.transferBytes ?? 0
        }
        resources.byType = byType
        resources.fromCache = requests.count { $0.fromCache == true }
        let site = URL(string: url).flatMap(\.host).map(HostName.site)
        let others = Set(requests.compactMap { URL(string: $0.url)?.host?.lowercased() }.filter { HostName.site($0) != site })
        thirdPartyHosts = others.isEmpty ? nil : others.sorted()
    }
}
