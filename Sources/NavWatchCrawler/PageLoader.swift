import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP
import NavWatchRx
import WebKitThread

/// What loading one frontier entry produced.
package struct PageResult: Sendable {
    package var report: PageLoadReport
    /// The links found on the page, in document order.
    var links: [PageFacts.Link] = []
    /// The URLs this load answered for besides its own (redirect hops, final URL).
    var aliases: [String] = []
    /// The `Retry-After` the server asked for, in seconds.
    var retryAfter: Double?
    /// The web process went away during the load: replace the view.
    var crashed = false
}

/// One web view of the crawler's pool, loading one page at a time and turning
/// its navigation and resource events into a `PageLoadReport`. Replaces its
/// view after `recycleAfter` pages (so memory stays flat) or a crash.
@WebKitActor
package final class PageLoader {
    private let configuration: WebViewConfiguration
    private let recycleAfter: Int
    private var view: WebView?
    private var pagesOnView = 0
    private let clock = ContinuousClock()

    /// Called when a page's load has been asked for (tests use it to crash the view).
    private let onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)?

    private let screenshotDirectory: URL?
    /// The guard `configuration.networkProxy` points at, asked what became
    /// of the requests it refused or could not carry out.
    private let privateAddressGuard: PrivateAddressGuard?

    package init(configuration: WebViewConfiguration, recycleAfter: Int, screenshotDirectory: URL? = nil,
                 privateAddressGuard: PrivateAddressGuard? = nil,
                 onLoadStarted: (@WebKitActor @Sendable (URL, WebView) -> Void)? = nil) {
        self.configuration = configuration
        self.recycleAfter = max(1, recycleAfter)
        self.screenshotDirectory = screenshotDirectory
        self.privateAddressGuard = privateAddressGuard
        self.onLoadStarted = onLoadStarted
    }

    package func close() {
        view?.close()
        view = nil
    }

    /// The view pages load in, created when there is none. A new view first
    /// loads a blank page, so its web process is running before any page's
    /// timeout starts.
    @discardableResult
    package func prepare() async throws -> WebView {
        if let view { return view }
        let view = try WebView(configuration: configuration)
        self.view = view
        pagesOnView = 0
        _ = try await view.rx.pageLoad(URL(string: "about:blank")!, timeout: .seconds(30))
        return view
    }

    /// Loads `entry` and reports on it. Never throws: every failure is in the report.
    package func load(_ entry: FrontierEntry, timeout: Duration) async throws -> PageResult {
        if pagesOnView >= recycleAfter { close() }
        let view = try await prepare()
        pagesOnView += 1

        var report = PageLoadReport(entry, outcome: .failed)
        report.attempts = entry.attempts + 1
        var result = PageResult(report: report)
        let events = view.rx.events  // subscribed before the load
        let start = clock.now
        // Only what the guard records from here on can be about this load.
        let guardMark = privateAddressGuard?.mark
        result.report.startedAt = Date()
        let navigation = try view.load(URL(string: entry.url)!, timeout: timeout)
        onLoadStarted?(navigation.url, view)

        let fold = RunningFold(navigation: navigation, events: events, start: start)
        await fold.wait(until: { $0.isEnded })
        var facts: PageFacts?
        if case .finished? = fold.state.outcome {
            facts = await PageFacts.read(from: view)
            if let screenshotDirectory {
                let name = PageLoadReport.screenshotName(for: entry.url)
                if (try? await view.writeScreenshot(to: screenshotDirectory.appendingPathComponent(name).path)) != nil {
                    result.report.screenshot = name
                }
            }
            // WebKit reports some requests' ends after the page's: let them arrive.
            await fold.wait(until: { $0.pendingBeforeEnd == 0 }, deadline: clock.now + Self.settleTime)
        }
        // A finished page is reported with its requests' late ends; one that
        // failed as it was when it failed (what was pending then included).
        let live = fold.stop()
        var finished = false
        if case .finished? = live.outcome { finished = true }
        let state = finished ? live : fold.stateAtEnd ?? live
        result.report.timings.commit = fold.committedAt?.milliseconds.tenths

        result.report.fetchedAt = Date()
        result.report.resources.count = state.resourceCount
        result.report.resources.failed = state.failedResourceCount
        result.report.redirects = state.redirects.map { .init(url: $0.url.absoluteString, status: $0.status) }
        result.crashed = state.webProcessTermination != nil
        if let response = state.response {
            result.report.status = response.statusCode > 0 ? response.statusCode : nil
            result.report.mime = response.mimeType
            result.report.finalURL = URLCanonicalizer.canonical(response.url)?.absoluteString ?? response.url.absoluteString
            if let retryAfter = response.value(forHeader: "Retry-After") { result.retryAfter = RetryAfter.seconds(from: retryAfter) }
        }
        switch state.outcome {
        case .finished?:
            result.report.timings.finish = fold.endedAt?.milliseconds.tenths
            let status = result.report.status ?? 0
            result.report.outcome = status >= 400 ? .httpError : .ok
            result.report.title = state.title
            if let facts { apply(facts, to: &result) }
        case .failed(_, let error, _)?:
            result.report.error = .init(error)
            switch error.kind {
            case .timeout:
                result.report.outcome = .timeout
                result.report.timeout = .init(stage: Self.name(of: state.lastStageBeforeEnd),
                                              pendingRequests: state.pendingRequests.values.map(\.absoluteString).sorted())
            case .webProcessCrashed:
                result.report.outcome = .crashed
                result.crashed = true
            default:
                result.report.outcome = state.download != nil ? .download : .failed
            }
        case nil:
            // The events ended without a `.closed` (the view went away).
            result.report.error = .init(.viewClosed(url: navigation.url))
        }
        if state.response != nil {  // a document was shown: its console and errors are known
            result.report.console = .init(errors: state.consoleCounts[.error] ?? 0,
                                          warnings: state.consoleCounts[.warning] ?? 0)
            result.report.pageErrors = state.pageErrors.prefix(PageLoadReport.listedPageErrors).map(PageLoadReport.PageErrorInfo.init)
            result.report.pageErrorCount = state.pageErrorCount
        }
        result.report.requests = RequestRecord.records(of: state, facts: facts, now: clock.now - start)
        Self.summarise(result.report.requests, into: &result.report)
        if let privateAddressGuard {
            var lastURL = navigation.url
            if case .failed(_, let error, _)? = state.outcome, let failing = error.failingURL { lastURL = failing }
            if let response = state.response { lastURL = response.url }
            result.report.applyGuard(privateAddressGuard.verdict(for: lastURL, since: guardMark), at: lastURL)
            if !result.report.wasLoaded { result.links = [] }
            result.report.resources.blocked = result.report.requests.filter { request in
                guard request.url != lastURL.absoluteString, let url = URL(string: request.url),
                      case .blocked? = privateAddressGuard.verdict(for: url, since: guardMark) else { return false }
                return true
            }.count
        }
        if result.crashed { close() }
        result.aliases = ([result.report.finalURL].compactMap { $0 } + result.report.redirects.map(\.url))
            .compactMap(URLCanonicalizer.key).filter { $0 != entry.url }
        return result
    }

    /// A report's name for the stage a navigation reached.
    private static func name(of stage: PageLoadState.Stage) -> String {
        switch stage {
        case .requested: return "requested"
        case .provisional: return "provisional"
        case .committed, .finished, .failed: return "committed"
        }
    }

    /// How long a finished page's requests may take to report their end.
    static let settleTime: Duration = .milliseconds(500)

    private func apply(_ facts: PageFacts, to result: inout PageResult) {
        result.links = facts.links
        result.report.links = facts.links.count
        result.report.anchors = facts.anchors
        result.report.timings.ttfb = facts.ttfb?.tenths
        result.report.timings.domContentLoaded = facts.domContentLoaded?.tenths
        result.report.timings.load = facts.load?.tenths
        result.report.timings.redirect = facts.redirect?.tenths
        result.report.timings.firstContentfulPaint = facts.firstContentfulPaint?.tenths
        result.report.resources.transferBytes = facts.transferBytes
    }

    /// Per-type weights and third-party hosts from a page's requests. A
    /// redirect counts as a request of the type it led to.
    nonisolated static func summarise(_ requests: [RequestRecord], into report: inout PageLoadReport) {
        var byType: [String: PageLoadReport.Resources.Weight] = [:]
        for request in requests {
            byType[request.type.rawValue, default: .init()].count += 1
            byType[request.type.rawValue, default: .init()].bytes += request.transferBytes ?? 0
        }
        report.resources.byType = byType
        let site = URL(string: report.url).flatMap(\.host).map(Self.site)
        let others = Set(requests.compactMap { URL(string: $0.url)?.host?.lowercased() }.filter { Self.site($0) != site })
        report.thirdPartyHosts = others.isEmpty ? nil : others.sorted()
    }

    /// The site a host belongs to: its last two labels (the host itself for an IP address).
    private nonisolated static func site(_ host: String) -> String {
        let host = host.lowercased()
        guard host.contains(where: \.isLetter) else { return host }
        return host.split(separator: ".").suffix(2).joined(separator: ".")
    }
}
