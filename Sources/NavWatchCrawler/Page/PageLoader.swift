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
        let live = fold.stop()
        result.report.record(live, facts: facts, now: clock.now - start)
        result.links = facts?.links ?? []
        let state = live.reportedState
        result.crashed = state.webProcessTermination != nil || result.report.outcome == .crashed
        if let retryAfter = state.response?.value(forHeader: "Retry-After") {
            result.retryAfter = RetryAfter.seconds(from: retryAfter)
        }
        if let privateAddressGuard {
            let lastURL = state.lastURL
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

    /// How long a finished page's requests may take to report their end.
    package static let settleTime: Duration = .milliseconds(500)
}
