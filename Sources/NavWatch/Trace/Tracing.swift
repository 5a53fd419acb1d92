import CNavShim
import Foundation
import NavWatchSupport
import Synchronization
import WebKitThread

/// Records a `Trace` of a view: `start()` it, and each load (`goto`,
/// `reload`, `goBack`, `goForward`), locator action and web-first assertion
/// (NavWatchTesting) becomes a step with a screenshot after it, beside the
/// console, the page's errors and every request, until `stop()`.
///
///     view.tracing.start(title: "checkout")
///     ...
///     try await view.tracing.stop(writingTo: traceFile)
///
/// A step's screenshot (of the viewport, at most `screenshotWidth` pixels
/// wide) is asked for as the step ends and comes in while the test goes on;
/// `stop()` waits for the last ones, each at most `screenshotTimeout`. A
/// screenshot takes some milliseconds of the web process (which paints it
/// before it goes on with the page) and is scaled and encoded off the
/// WebKit thread; with `screenshots: false` a trace costs next to nothing.
/// Under Swift Testing, an assertion that fails on a traced view attaches
/// the trace so far (`trace.html`) to the test's issue.
@WebKitActor
public final class Tracing {
    private weak var view: WebView?
    private var trace: Trace? {
        didSet { recording.store(trace != nil, ordering: .relaxed) }
    }
    /// Whether a trace is being recorded, readable from any thread
    /// (`isRecordingNow`): for a proxy that would mark requests in it.
    private nonisolated let recording = Atomic<Bool>(false)
    private var screenshots = true
    private var start = ContinuousClock.now
    /// Requests started and not yet ended, by resource id: their index in `trace.requests`.
    private var pending: [UInt64: Int] = [:]
    /// Requests started that the view's proxy has not told of yet, by
    /// `METHOD url`: their indexes in `trace.requests`, oldest first.
    private var unproxied: [String: [Int]] = [:]
    /// What the view's proxy told of requests not started yet, by `METHOD url`, oldest first.
    private var proxiedEarly: [String: [Bool]] = [:]
    /// Screenshots taken and not yet in the trace.
    private var screenshotsTaken: [Task<Void, Never>] = []
    /// How many traces were started: a screenshot of an earlier one is not put in a later one.
    private var generation = 0

    /// How wide a step's screenshot is at most, in pixels: a wider viewport's is scaled down.
    public nonisolated static let screenshotWidth = 800
    /// How a step's screenshot is encoded: JPEG, a few milliseconds where a
    /// PNG takes some tens.
    public nonisolated static let screenshotType = ScreenshotType.jpeg(quality: 80)
    /// How long a step's screenshot may take (a web process that does not
    /// answer): the step then has none.
    public nonisolated static let screenshotTimeout: Duration = .seconds(5)

    init(view: WebView) { self.view = view }

    /// Whether a trace is being recorded.
    public var isRecording: Bool { trace != nil }

    /// Whether a trace is being recorded, asked from any thread.
    package nonisolated var isRecordingNow: Bool { recording.load(ordering: .relaxed) }

    /// Starts a new trace, dropping one being recorded.
    ///
    /// - Parameters:
    ///   - title: what the trace is of (a test's name); `navwatch` when not given.
    ///   - screenshots: whether each step ends with a screenshot of the viewport.
    public func start(title: String = "navwatch", screenshots: Bool = true) {
        trace = Trace(title: title, startedAt: Date())
        self.screenshots = screenshots
        start = .now
        pending = [:]
        (unproxied, proxiedEarly) = ([:], [:])
        generation += 1
    }

    /// The trace so far, its steps' screenshots all in, without stopping;
    /// nil when none is being recorded.
    public func current() async -> Trace? {
        await screenshotsIn()
        return trace
    }

    /// Stops recording and returns the trace, once its steps' screenshots
    /// are in; nil when none was being recorded.
    @discardableResult
    public func stop() async -> Trace? {
        await screenshotsIn()
        defer { trace = nil }
        return trace
    }

    private func screenshotsIn() async {
        while !screenshotsTaken.isEmpty {
            let taken = screenshotsTaken
            screenshotsTaken = []
            for screenshot in taken { await screenshot.value }
        }
    }

    /// Stops recording and writes the trace's HTML (`Trace.html()`) to `file`, replacing it.
    ///
    /// - Throws: `WebViewError.storageFailed` when the file cannot be written.
    @discardableResult
    public func stop(writingTo file: URL) async throws(WebViewError) -> Trace? {
        guard let trace = await stop() else { return nil }
        do {
            try Data(trace.html().utf8).write(to: file, options: .atomic)
        } catch {
            throw .storageFailed("cannot write the trace \(file.path): \(error.localizedDescription)")
        }
        return trace
    }

    // MARK: Recording

    private var now: Double { (ContinuousClock.now - start).seconds * 1000 }

    /// Runs `body` as a step called `title` when recording; as it is
    /// otherwise. A step fails when `body` throws, or when `failure` says why
    /// the value it returns is a failure (a load that failed).
    package func step<T, Failure: Error>(_ title: @autoclosure () -> String, failure: (T) -> String? = { _ in nil },
                                         _ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard trace != nil else { return try await body() }
        let index = begin(title())
        do {
            let value = try await body()
            await end(index, error: failure(value))
            return value
        } catch {
            await end(index, error: "\(error)")
            throw error
        }
    }

    /// Records a step called `title` that started at `start` and ends now,
    /// with a screenshot; nothing when no trace is being recorded. For a
    /// caller that runs steps of its own (`navwatch URL`'s loads).
    package func addStep(_ title: String, since start: ContinuousClock.Instant, error: String?) async {
        guard trace != nil else { return }
        let startMilliseconds = max(0, (start - self.start).seconds * 1000)
        trace?.steps.append(Trace.Step(title: title, startMilliseconds: startMilliseconds, durationMilliseconds: 0))
        await end((trace?.steps.count ?? 1) - 1, error: error)
    }

    private func begin(_ title: String) -> Int {
        trace?.steps.append(Trace.Step(title: title, startMilliseconds: now, durationMilliseconds: 0))
        return (trace?.steps.count ?? 1) - 1
    }

    private func end(_ index: Int, error: String?) async {
        guard trace != nil, index < trace?.steps.count ?? 0 else { return }
        let took = now - (trace?.steps[index].startMilliseconds ?? 0)
        trace?.steps[index].durationMilliseconds = took
        trace?.steps[index].error = error
        guard screenshots, let view else { return }
        // Asked for now, so that it shows the page as this step left it; put
        // in the trace when it comes, while the test goes on.
        let screenshot = view.requestScreenshot(type: Self.screenshotType, maxWidth: Self.screenshotWidth,
                                                timeout: Self.screenshotTimeout)
        let generation = generation
        screenshotsTaken.append(Task { [weak self] in
            let jpeg = try? await screenshot.value()
            guard let self, self.generation == generation, index < self.trace?.steps.count ?? 0 else { return }
            self.trace?.steps[index].screenshot = jpeg
        })
    }

    /// What the view's proxy (NavWatchTesting's routes) saw of a request of
    /// `method` for `url`: whether a route answered it (`Trace.Request.routed`).
    /// The proxy may see a request before the view says it started, or
    /// after: the two are matched by method and URL, oldest first.
    package func markProxied(method: String, url: String, routed: Bool) {
        guard trace != nil else { return }
        let key = method + " " + url
        guard let index = Self.takeOldest(key, from: &unproxied) else {
            proxiedEarly[key, default: []].append(routed)
            return
        }
        if routed { trace?.requests[index].routed = true }
    }

    /// A request started at `index`: what the proxy said of it already, or that it waits to.
    private func proxyStarted(_ index: Int) {
        guard let request = trace?.requests[index] else { return }
        let key = request.method + " " + request.url
        guard let routed = Self.takeOldest(key, from: &proxiedEarly) else {
            unproxied[key, default: []].append(index)
            return
        }
        if routed { trace?.requests[index].routed = true }
    }

    /// Removes and returns the oldest of `key`'s queue in `queues`; nil when it has none.
    private static func takeOldest<T>(_ key: String, from queues: inout [String: [T]]) -> T? {
        guard var queue = queues[key], !queue.isEmpty else { return nil }
        let oldest = queue.removeFirst()
        queues[key] = queue.isEmpty ? nil : queue
        return oldest
    }

    /// A request at `index` ended: one the proxy has not told of by now never went through it (a cache hit).
    private func proxyEnded(_ index: Int) {
        guard let request = trace?.requests[index] else { return }
        let key = request.method + " " + request.url
        unproxied[key]?.removeAll { $0 == index }
        if unproxied[key]?.isEmpty == true { unproxied[key] = nil }
    }

    /// Takes what `event` says for the trace: a console message, an error, a request.
    func receive(_ event: WebViewEvent) {
        guard trace != nil else { return }
        switch event {
        case .consoleMessage(let message):
            let location = message.url.map { url in message.line.map { "\(url.absoluteString):\($0)" } ?? url.absoluteString }
            trace?.messages.append(.init(milliseconds: now, level: message.level.rawValue, text: message.text, location: location))
        case .pageError(let error):
            let location = error.url.map { url in error.line.map { "\(url.absoluteString):\($0)" } ?? url.absoluteString }
            trace?.messages.append(.init(milliseconds: now, level: "pageerror", text: error.message, location: location))
        case .resource(.started(let id, let url, let method, _, _)):
            let index = trace?.requests.count
            pending[id] = index
            trace?.requests.append(.init(milliseconds: now, method: method ?? "GET", url: url.absoluteString))
            if let index { proxyStarted(index) }
        case .resource(.finished(let id, _, let status, let mimeType, _)):
            guard let index = pending.removeValue(forKey: id) else { return }
            proxyEnded(index)
            let took = now - (trace?.requests[index].milliseconds ?? 0)
            trace?.requests[index].status = status
            trace?.requests[index].mimeType = mimeType
            trace?.requests[index].durationMilliseconds = took
        case .resource(.failed(let id, _, let error)):
            guard let index = pending.removeValue(forKey: id) else { return }
            proxyEnded(index)
            let took = now - (trace?.requests[index].milliseconds ?? 0)
            trace?.requests[index].failure = error.description
            trace?.requests[index].durationMilliseconds = took
        default:
            return
        }
    }
}
