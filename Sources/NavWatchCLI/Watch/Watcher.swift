import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchGuard
import NavWatchRx

/// How one requested URL went, for the summary line and the exit code.
package struct PageSummary: Sendable, Equatable {
    package var requested: URL
    package var nav: Int
    package var status: Int?
    package var finalURL: String?
    package var commitMilliseconds: Double?
    package var finishMilliseconds: Double?
    package var title: String?
    package var error: NavigationError?
    /// Console messages at level error and warning, and page errors, while it was watched.
    package var consoleErrors = 0
    package var consoleWarnings = 0
    package var pageErrors = 0
    /// Reached its `WaitUntil` point with an HTTP status below 400.
    package var succeeded: Bool
    /// The load as a report with every request, when `Options.recordRequests` is set.
    package var report: PageLoadReport?
    /// The screenshot written, when `Options.screenshot` is set and the page finished.
    package var screenshot: String?
}

/// Loads URLs one after another in one view and reports every event of every
/// navigation, the moment it happens, to `emit` (called on the WebKit thread,
/// in order). Every navigation gets exactly one terminal event: `finished`,
/// `failed` or `terminated`.
@WebKitActor
package final class Watcher {
    package struct Options: Sendable {
        package var timeout: Duration = .seconds(30)
        package var waitUntil: WaitUntil = .finish
        package var resources = false
        /// Read every request of each page (for `--har`) once it is done.
        package var recordRequests = false
        /// Where a PNG of each finished page's viewport goes: this path for
        /// one URL; for several, `-1`, `-2`, ... before its extension.
        package var screenshot: String?
        /// The whole page in the screenshot, not just the viewport.
        package var fullPageScreenshot = false
        package var configuration = WebViewConfiguration()
        /// The guard the view's requests go through (`--block-private`), if
        /// any: each URL it refused is passed to `onBlocked` once, the
        /// moment WebKit ends the request.
        package var privateAddressGuard: PrivateAddressGuard?
        package init() {}
    }

    private let options: Options
    private let emit: (WatchEvent) -> Void
    private let onBlocked: (URL, BlockedRequest) -> Void
    /// The URLs already passed to `onBlocked`.
    private var blockedURLs: Set<URL> = []
    /// Where the guard's record stood when this watcher started.
    private var guardMark: GuardMark?
    private let clock = ContinuousClock()

    // The consumer's view of navigations, built from the events it has seen.
    private var numbers: [UInt64: Int] = [:]
    private var startTimes: [UInt64: ContinuousClock.Instant] = [:]
    /// Every navigation still running, and the current one also after it ended.
    private var loads: [UInt64: PageLoadState] = [:]
    private var lastNumber = 0
    private var current: (navigation: Navigation, summary: PageSummary, done: Bool)?
    private var doneWaiter: CheckedContinuation<Void, Never>?
    private var lastNetworkActivity: ContinuousClock.Instant
    private var view: WebView?
    private var interrupted = false

    /// - Parameters:
    ///   - emit: every event, in order, on the WebKit thread.
    ///   - onBlocked: each URL `options.privateAddressGuard` refused, once,
    ///     with the guard's record of it; on the WebKit thread, in the order
    ///     WebKit ended the requests.
    package init(options: Options, emit: @escaping (WatchEvent) -> Void,
                onBlocked: @escaping (URL, BlockedRequest) -> Void = { _, _ in }) {
        self.options = options
        self.emit = emit
        self.onBlocked = onBlocked
        self.guardMark = options.privateAddressGuard?.mark
        self.lastNetworkActivity = clock.now
    }

    /// Watches each URL in turn; returns one summary per URL that was started.
    /// Stops early, after reporting the current navigation as cancelled, when
    /// `interrupt()` is called.
    package func run(_ urls: [URL]) async throws -> [PageSummary] {
        let view = try WebView(configuration: options.configuration)
        self.view = view
        let events = view.rx.events  // subscribed before the first load
        let consumer = Task { @WebKitActor in
            for await event in events { self.handle(event) }
        }
        var summaries: [PageSummary] = []
        for url in urls where !interrupted {
            let requestedAt = clock.now
            let navigation = try view.load(url, timeout: options.timeout)
            lastNumber += 1
            numbers[navigation.id] = lastNumber
            startTimes[navigation.id] = requestedAt
            loads[navigation.id] = PageLoadState(navigation: navigation)
            current = (navigation, PageSummary(requested: url, nav: lastNumber, succeeded: false), false)
            await waitUntilDone(navigation)
            if options.recordRequests { await record(navigation, on: view) }
            if let path = options.screenshot, current?.summary.finishMilliseconds != nil {
                let file = urls.count == 1 ? path : Self.numbered(path, summaries.count + 1)
                do {
                    try await view.writeScreenshot(to: file, fullPage: options.fullPageScreenshot)
                    current?.summary.screenshot = file
                } catch {
                    // The page itself loaded: say so on standard error and go on with the next.
                    FileHandle.standardError.write(Data("navwatch: cannot write the screenshot \(file): \(error)\n".utf8))
                }
            }
            summaries.append(current!.summary)
            if loads[navigation.id]?.isEnded == true { loads[navigation.id] = nil }
            current = nil
        }
        view.close()  // ends a navigation still running as cancelled, then completes `events`
        await consumer.value
        self.view = nil
        return summaries
    }

    /// `path` with `-number` before its extension.
    static func numbered(_ path: String, _ number: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        return ext.isEmpty ? "\(stem)-\(number)" : "\(stem)-\(number).\(ext)"
    }

    /// Makes the current page's report, with every request it made.
    private func record(_ navigation: Navigation, on view: WebView) async {
        guard var summary = current?.summary else { return }
        let finished = summary.finishMilliseconds != nil
        let facts = finished ? await PageFacts.read(from: view) : nil
        if finished {
            // WebKit reports some requests' ends after the page's: let them arrive.
            await settle(until: clock.now + .milliseconds(500)) { self.requestsBeforeEndInFlight }
        }
        guard let state = loads[navigation.id] else { return }
        let now = clock.now - (startTimes[navigation.id] ?? clock.now)
        var report = PageLoadReport(url: summary.requested.absoluteString, depth: 0, parent: nil, outcome: .failed)
        report.startedAt = Date().addingTimeInterval(-now.seconds)
        report.attempts = 1
        report.record(state, facts: facts, now: now)
        summary.report = report
        current?.summary = summary
    }

    /// Stops the running navigation (reported as cancelled) and starts no other.
    package func interrupt() {
        interrupted = true
        view?.stop()
        finishWaiting()
        resumeSettled()
    }

    // MARK: Waiting

    private func waitUntilDone(_ navigation: Navigation) async {
        if current?.done != true && !interrupted {
            await withCheckedContinuation { doneWaiter = $0 }
        }
        guard current?.summary.finishMilliseconds != nil, !interrupted else { return }
        let deadline = (startTimes[navigation.id] ?? clock.now) + options.timeout
        switch options.waitUntil {
        case .commit:
            return
        case .finish:
            // With --resources, let the resources still in flight report their
            // end (WebKit may report it after the page's), for up to a second.
            if options.resources { await settle(until: min(deadline, clock.now + .seconds(1))) }
        case .idle:
            // No resource in flight and no network activity for 500 ms, within the timeout.
            while !interrupted && clock.now < deadline {
                await settle(until: deadline)
                let quietUntil = lastNetworkActivity + .milliseconds(500)
                if clock.now >= quietUntil { return }
                try? await Task.sleep(until: min(quietUntil, deadline), clock: clock)
            }
        }
    }

    /// Whether the current page has requests on the network.
    private var requestsInFlight: Bool {
        current.flatMap { loads[$0.navigation.id] }?.hasPendingRequests ?? false
    }

    /// Whether requests the current page started before it ended are still on the network.
    private var requestsBeforeEndInFlight: Bool {
        (current.flatMap { loads[$0.navigation.id] }?.pendingBeforeEnd ?? 0) > 0
    }

    /// Returns once `inFlight` is false (by default: no resource is in
    /// flight), or at `deadline`.
    private func settle(until deadline: ContinuousClock.Instant, while inFlight: @escaping () -> Bool = { true }) async {
        settleCondition = inFlight
        defer { settleCondition = nil }
        guard requestsInFlight, inFlight(), !interrupted else { return }
        let timer = Task { [clock] in
            try? await Task.sleep(until: deadline, clock: clock)
            self.resumeSettled()
        }
        await withCheckedContinuation { settledWaiter = $0 }
        timer.cancel()
    }

    private func resumeSettled() {
        settledWaiter?.resume()
        settledWaiter = nil
    }

    private var settledWaiter: CheckedContinuation<Void, Never>?
    /// What `settle` waits for to become false, besides requests in flight.
    private var settleCondition: (() -> Bool)?

    private func markDone() {
        guard current?.done == false else { return }
        current?.done = true
        finishWaiting()
    }

    private func finishWaiting() {
        doneWaiter?.resume()
        doneWaiter = nil
    }

    // MARK: Events

    private func handle(_ event: WebViewEvent) {
        if case .navigation(.didStartProvisionalNavigation(let navigation)) = event, loads[navigation.id] == nil {
            loads[navigation.id] = PageLoadState(navigation: navigation)  // the page started it
        }
        let now = clock.now
        for id in loads.keys { loads[id]!.apply(event, at: now - (startTimes[id] ?? now)) }
        switch event {
        case .navigation(let navigationEvent): handle(navigationEvent)
        case .resource(let resourceEvent): handle(resourceEvent)
        case .consoleMessage(let message): handle(message)
        case .pageError(let error): handle(error)
        case .propertyChange, .closed: break
        }
    }

    private func number(_ navigation: Navigation) -> Int {
        if let number = numbers[navigation.id] { return number }
        lastNumber += 1
        numbers[navigation.id] = lastNumber
        return lastNumber
    }

    private func milliseconds(_ navigation: Navigation?) -> Double {
        guard let navigation, let start = startTimes[navigation.id] else { return 0 }
        return (clock.now - start).milliseconds
    }

    private func isCurrent(_ navigation: Navigation) -> Bool {
        current?.navigation.id == navigation.id
    }

    /// Forgets an ended navigation, unless it is the current one (whose
    /// requests `--wait-until idle` still watches).
    private func retire(_ navigation: Navigation) {
        if !isCurrent(navigation) { loads[navigation.id] = nil }
    }

    private func handle(_ event: NavigationEvent) {
        switch event {
        case .didStartProvisionalNavigation(let navigation):
            if startTimes[navigation.id] == nil { startTimes[navigation.id] = clock.now }
            emit(WatchEvent(kind: .started, nav: number(navigation), url: navigation.url.absoluteString,
                            milliseconds: milliseconds(navigation)))

        case .didReceiveServerRedirect(let navigation, let url):
            emit(WatchEvent(kind: .redirected, nav: number(navigation), url: url.absoluteString,
                            milliseconds: milliseconds(navigation)))

        case .didCommit(let navigation, let response):
            let ms = milliseconds(navigation)
            emit(WatchEvent(kind: .committed, nav: number(navigation), url: response.url.absoluteString,
                            milliseconds: ms, status: httpStatus(response), mime: response.mimeType))
            if isCurrent(navigation) {
                current?.summary.status = httpStatus(response)
                current?.summary.finalURL = response.url.absoluteString
                current?.summary.commitMilliseconds = ms
                current?.summary.succeeded = (httpStatus(response) ?? 0) < 400
                if options.waitUntil == .commit { markDone() }
            }

        case .didFinish(let navigation):
            let ms = milliseconds(navigation)
            let state = loads[navigation.id]
            let response = state?.response
            let title = state?.title
            let finalURL = (response?.url ?? navigation.url).absoluteString
            retire(navigation)
            emit(WatchEvent(kind: .finished, nav: number(navigation), url: finalURL,
                            milliseconds: ms, status: response.flatMap(httpStatus), mime: response?.mimeType, title: title))
            if isCurrent(navigation) {
                current?.summary.finishMilliseconds = ms
                current?.summary.title = title
                current?.summary.finalURL = finalURL
                markDone()
            }

        case .didFailProvisionalNavigation(let navigation, let error), .didFail(let navigation, let error):
            reportIfBlocked(error.failingURL ?? navigation.url)
            let provisional: Bool
            if case .didFailProvisionalNavigation = event { provisional = true } else { provisional = false }
            // A failure that follows the web process going away is the `terminated` line.
            let terminated = loads[navigation.id]?.webProcessTermination != nil && error.kind == .webProcessCrashed
            retire(navigation)
            emit(WatchEvent(kind: terminated ? .terminated : .failed, nav: number(navigation),
                            url: error.failingURL?.absoluteString ?? navigation.url.absoluteString,
                            milliseconds: milliseconds(navigation), provisional: provisional, error: error))
            if isCurrent(navigation) {
                current?.summary.error = error
                current?.summary.succeeded = false
                markDone()
            }

        case .webContentProcessDidTerminate(let reason):
            if loads.values.allSatisfy({ $0.isEnded || $0.stage == .requested }) {
                // No navigation fails of it (one not started yet is issued
                // again in a new process): report it against the last one.
                let error = NavigationError(kind: .webProcessCrashed, domain: NavigationError.navwatchDomain,
                                            code: NavigationError.NavwatchCode.webProcessTerminated.rawValue,
                                            message: "the web process terminated (\(reason))", failingURL: view?.url)
                emit(WatchEvent(kind: .terminated, nav: lastNumber, url: view?.url?.absoluteString ?? "",
                                milliseconds: 0, error: error))
            }  // otherwise the failure that follows becomes the `terminated` line

        case .sameDocumentNavigation(let change):
            emit(WatchEvent(kind: .sameDocument, nav: change.navigation.map(number) ?? lastNumber,
                            url: change.url.absoluteString, milliseconds: milliseconds(change.navigation)))

        case .newWindowRequest(let request):
            emit(WatchEvent(kind: .newWindow, nav: lastNumber, url: request.url?.absoluteString ?? "",
                            milliseconds: milliseconds(current?.navigation)))

        case .scriptDialog(let dialog):
            emit(WatchEvent(kind: .dialog, nav: lastNumber, url: view?.url?.absoluteString ?? "",
                            milliseconds: milliseconds(current?.navigation), note: "\(dialog.kind): \(dialog.message)"))

        case .download(let download):
            emit(WatchEvent(kind: .download, nav: download.navigation.map(number) ?? lastNumber,
                            url: download.url.absoluteString, milliseconds: milliseconds(download.navigation),
                            status: httpStatus(download.response), mime: download.response.mimeType))
        }
    }

    /// Passes `url` to `onBlocked` if the guard refused it and it was not passed before.
    private func reportIfBlocked(_ url: URL) {
        guard let privateAddressGuard = options.privateAddressGuard,
              case .blocked(let request) = privateAddressGuard.verdict(for: url, since: guardMark),
              blockedURLs.insert(url).inserted else { return }
        onBlocked(url, request)
    }

    private func handle(_ event: ResourceEvent) {
        lastNetworkActivity = clock.now
        defer { if !requestsInFlight || settleCondition?() == false { resumeSettled() } }
        switch event {
        case .finished(_, let url, _, _, _), .failed(_, let url, _): reportIfBlocked(url)
        case .started, .redirected: break
        }
        guard options.resources else { return }
        let navigation = current?.navigation
        switch event {
        case .started(_, let url, _, _, _):
            emit(WatchEvent(kind: .resourceStarted, nav: lastNumber, url: url.absoluteString,
                            milliseconds: milliseconds(navigation)))
        case .redirected:
            return
        case .finished(let id, let url, let status, let mime, _):
            // WebKit reports `finished` after `failed` too; print one line per resource.
            if failedResources.remove(id) != nil { return }
            emit(WatchEvent(kind: .resourceFinished, nav: lastNumber, url: url.absoluteString,
                            milliseconds: milliseconds(navigation), status: status > 0 ? status : nil, mime: mime))
        case .failed(let id, let url, let error):
            failedResources.insert(id)
            emit(WatchEvent(kind: .resourceFailed, nav: lastNumber, url: url.absoluteString,
                            milliseconds: milliseconds(navigation), error: error))
        }
    }

    private var failedResources: Set<UInt64> = []

    private func handle(_ message: ConsoleMessage) {
        if let navigation = message.navigation, isCurrent(navigation) {
            if message.level == .error { current?.summary.consoleErrors += 1 }
            if message.level == .warning { current?.summary.consoleWarnings += 1 }
        }
        emit(WatchEvent(kind: .console, nav: message.navigation.map(number) ?? lastNumber,
                        url: message.url?.absoluteString ?? "", milliseconds: milliseconds(message.navigation),
                        level: message.level.rawValue, message: message.text, line: message.line))
    }

    private func handle(_ error: PageError) {
        if let navigation = error.navigation, isCurrent(navigation) { current?.summary.pageErrors += 1 }
        emit(WatchEvent(kind: .pageError, nav: error.navigation.map(number) ?? lastNumber,
                        url: error.url?.absoluteString ?? "", milliseconds: milliseconds(error.navigation),
                        message: error.message, line: error.line, column: error.column))
    }

    private func httpStatus(_ response: NavigationResponse) -> Int? {
        response.statusCode > 0 ? response.statusCode : nil
    }
}
