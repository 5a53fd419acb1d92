import Foundation
import NavWatch
import NavWatchGuard
import NavWatchHTTP
import WebKitThread

// The worker loops: `work` (RenderMode.always), `read` and `render`
// (RenderMode.auto and .never), their loaders, and plain-HTTP checks.
extension Crawler {
    /// A worker of `RenderMode.always`: leases pages and renders each in its view.
    func work(_ http: HTTPChecker) async throws {
        // Ready before the first lease, so a page taken in breadth-first
        // order also starts in that order.
        let loader = try await preparedLoader()
        var current = try await nextEntry()
        var storing = PendingStores(limit: storesWhileLoading)
        while let entry = current, !Task.isCancelled {
            // A pipeline: the next page is leased while this one loads, and
            // this one's report is stored while the next ones load.
            async let upcoming = nextEntry()
            let loaded = entry.kind.isCheck ? await checkInTurn(entry, http) : try await renderInTurn(entry, loader, http)
            guard let result = loaded else { break }
            // While the next pages load: its links are sorted (and offered to a
            // waiting worker), then it is stored once its late window has closed.
            try await storing.add(Task { try await self.complete(entry, result) })
            current = try await upcoming
        }
        try await storing.drain()
        await Task { @WebKitActor in loader.close() }.value
    }

    /// How many rendered pages a worker keeps waiting for their late windows
    /// while it loads the next: as many as its loader has views; none over a
    /// network profile, where a page has the loader's link to itself.
    var storesWhileLoading: Int {
        configuration.network == nil ? PageLoader.views(concurrency: configuration.concurrency) : 0
    }

    /// A page loader of the crawl's views, its view ready.
    func preparedLoader() async throws -> PageLoader {
        var webView = configuration.webView
        var loaderGuard = privateAddressGuard
        if let network = configuration.network {
            // The loader's views share a link of their own, as one phone's pages do.
            let linkGuard = try await PrivateAddressGuard.start(allowedHosts: seedHosts, link: network.linkShape,
                                                                blocksPrivateAddresses: !configuration.allowPrivateAddresses)
            linkGuards.append(linkGuard)
            loaderGuard = linkGuard
            webView.networkProxy = linkGuard.proxyURL
        }
        if !RepeatedRuns.keepsMemoryCache(runs: configuration.runs) { webView.memoryCache = false }
        let loader = await PageLoader(configuration: webView, recycleAfter: configuration.recycleAfter,
                                      settle: configuration.settle, screenshotDirectory: configuration.screenshotDirectory,
                                      privateAddressGuard: loaderGuard, network: configuration.network,
                                      pageHandler: configuration.pageHandler,
                                      handlerTimeout: configuration.pageHandlerTimeout,
                                      views: PageLoader.views(concurrency: configuration.concurrency),
                                      routes: configuration.routeClicks.map { (routeMemory, $0) },
                                      onLoadStarted: onLoadStarted)
        try await Task { @WebKitActor in _ = try await loader.prepare() }.value
        return loader
    }

    /// While the next page loads: the page's links are sorted (and offered to
    /// a waiting worker), then it is stored once its late window has closed.
    func complete(_ entry: FrontierEntry, _ result: PageResult) async throws {
        if HostPacing.isPushBack(result.report.status) {
            // The host is slowed down for every worker at once, before the next lease.
            try await store.pushBack(host: entry.host, retryAfter: result.retryAfter, at: Date())
        }
        sortLinks(of: entry, result)
        try await finish(entry, await result.completed())
    }

    /// A read worker: leases pages, fetches and parses each, and reports it
    /// from its HTML or hands it to the render workers (`RenderSampler`).
    func read(_ http: HTTPChecker) async throws {
        var current = try await nextEntry()
        var storing = PendingStores(limit: 1)
        while let entry = current, !Task.isCancelled {
            async let upcoming = nextEntry()  // leased while this one is read
            await waitForTurn(entry)
            if Task.isCancelled { break }
            let result = entry.kind.isCheck ? await check(entry, http) : await read(entry, http)
            if let result {
                try await storing.add(Task { try await self.complete(entry, result) })
            }
            current = try await upcoming
        }
        try await storing.drain()
    }

    func readWorkerEnded() {
        readWorkersRunning -= 1
        wakeAll()
    }

    /// A render worker: renders the pages the read workers hand over, in its view.
    func render(_ http: HTTPChecker) async throws {
        // Made once the crawl has a first page to render, by every render
        // worker at once: a site whose pages all read from HTML starts no
        // web process, and the others are not started one render late.
        guard await rendersNeeded() else { return }
        let loader = try await preparedLoader()
        var storing = PendingStores(limit: storesWhileLoading)
        // The pages of a kind this worker's renders decided, stored apart from the
        // rendered ones, which wait for their late windows.
        var storingDecided: Task<Void, any Error>?
        while let job = await nextRenderJob() {
            let entry = job.entry
            // A render that speaks for its kind reads its links as the load event left them too (`compare`).
            let comparing = job.reason == .sample || job.reason == .spotCheck
            guard var result = try await renderInTurn(entry, loader, http, readingLinksAtLoad: comparing) else { break }
            compare(job, result)
            result.renderReason = job.reason
            let decided = decideAwaiting(job.page.kind)
            if !decided.isEmpty {
                storingDecided = Task { [storingDecided] in
                    try await storingDecided?.value
                    for (entry, result) in decided { try await self.complete(entry, result) }
                }
            }
            try await storing.add(Task { [result] in try await self.complete(entry, result) })
        }
        try await storing.drain()
        try await storingDecided?.value
        await Task { @WebKitActor in loader.close() }.value
    }

    /// Whether the crawl has had a page to render; false once no read worker
    /// runs and none was handed over.
    func rendersNeeded() async -> Bool {
        while !Task.isCancelled {
            if renderingStarted { return true }
            if readWorkersRunning == 0 { return false }
            await waitForChange(until: clock.now + .seconds(1))
        }
        return false
    }

    /// The next page to render; nil once no read worker runs and none is left.
    func nextRenderJob() async -> RenderJob? {
        while !Task.isCancelled {
            if !renderQueue.isEmpty {
                defer { wakeAll() }  // a read worker waiting for room
                return renderQueue.removeFirst()
            }
            if readWorkersRunning == 0 { return nil }
            await waitForChange(until: clock.now + .seconds(1))
        }
        return nil
    }

    /// `entry` rendered in `loader`'s view when it is its host's turn
    /// (`waitForTurn`): the view is made ready first, so that the request
    /// leaves as the turn comes. Nil when the task was cancelled meanwhile.
    func renderInTurn(_ entry: FrontierEntry, _ loader: PageLoader, _ http: HTTPChecker,
                      readingLinksAtLoad: Bool = false) async throws -> PageResult? {
        let timeout = configuration.timeout
        try await Task { @WebKitActor in try await loader.ready(for: entry) }.value
        await waitForTurn(entry)
        if Task.isCancelled { return nil }
        let result = try await Task { @WebKitActor in
            try await loader.load(entry, timeout: timeout, readingLinksAtLoad: readingLinksAtLoad)
        }.value
        return await confirmingRedirects(result, of: entry, http)
    }

    /// `entry` checked with plain HTTP when it is its host's turn; nil when
    /// the task was cancelled meanwhile.
    func checkInTurn(_ entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult? {
        await waitForTurn(entry)
        if Task.isCancelled { return nil }
        return await check(entry, http)
    }

    /// `result`, or for a rendered page that failed before any answer (a
    /// crash, a failure with no status) and that the HTTP client finds
    /// redirecting to a scheme other than http and https, that page
    /// `blocked` as the HTML path reports it. WebKit follows such a redirect
    /// in its network process, where no signal reaches navwatch first, and
    /// its web process then fails or crashes; the one request more is made
    /// only after such a failure.
    func confirmingRedirects(_ result: PageResult, of entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult {
        guard [.crashed, .failed].contains(result.report.outcome),
              result.report.status.map(HTTPChecker.redirectStatuses.contains) ?? true,
              let url = URL(string: entry.url) else { return result }
        let check = await http.check(url)
        guard check.errorKind == .policy, let target = check.finalURL.scheme?.lowercased(),
              !HTTPChecker.schemes.contains(target) else {
            return result
        }
        var confirmed = PageResult(report: PageLoadReport(entry, outcome: .blocked))
        confirmed.report.startedAt = result.report.startedAt
        confirmed.report.attempts = result.report.attempts
        confirmed.report.rendered = result.report.rendered
        confirmed.report.record(check)
        confirmed.report.checkedWith = nil  // a page of the crawl, not a checked link
        confirmed.renderReason = result.renderReason
        return confirmed
    }

    /// Checks a link outside the scope, or a resource a page embeds, with plain HTTP.
    func check(_ entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult {
        let startedAt = Date()
        guard let url = URL(string: entry.url) else {
            return PageResult(report: .skipped(entry, .nonHTTP))
        }
        let guardMark = privateAddressGuard?.mark
        let check = await http.check(url)
        var report = PageLoadReport(entry, outcome: .ok)
        report.startedAt = startedAt
        report.attempts = entry.attempts + 1
        report.record(check, guardVerdict: privateAddressGuard?.verdict(for: check.finalURL, since: guardMark))
        return PageResult(report: report, retryAfter: check.retryAfter)
    }
}
