import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
@testable import NavWatchRx
import Synchronization
import Testing
import WebKitThread

private let server = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// A sequence that yields `before`, then fails, and would yield `after` to
/// anyone who kept asking: a binding that goes on after the failure shows.
private struct FailingSequence: AsyncSequence, Sendable {
    typealias Element = URL
    struct Broken: Error {}
    let before: [URL]
    let after: [URL]

    struct Iterator: AsyncIteratorProtocol {
        var before: [URL]
        var after: [URL]
        var failed = false
        mutating func next() async throws -> URL? {
            if !before.isEmpty { return before.removeFirst() }
            if !failed {
                failed = true
                throw Broken()
            }
            return after.isEmpty ? nil : after.removeFirst()
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(before: before, after: after) }
}

@Suite("Binders and control properties")
@WebKitActor
struct BinderTests {
    @Test("binding three URLs into rx.load makes three navigations, in order, each ending once")
    func threeURLs() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let events = view.rx.navigationEvents
        let urls = ["/page", "/status/404", "/redirect/1"].map(server.url)
        let token = urls.async.bind(to: view.rx.load)
        try await withDeadline("the binding to end") { await token.ended() }
        // A load that comes before the previous one finished ends it (as
        // cancelled), so the first two may finish or be cancelled; the last finishes.
        var ends: [NavigationEvent] = []
        let log = EventLog(events)
        while ends.count < 3, let event = try await log.next("the end of three navigations") {
            if event.isTerminal { ends.append(event) }
        }
        #expect(ends.compactMap(\.navigation?.url) == urls)
        #expect(ends.compactMap(\.navigation?.id) == ends.compactMap(\.navigation?.id).sorted())
        guard case .didFinish = ends.last else { Issue.record("the last load did not finish: \(ends)"); return }
    }

    @Test("a binder whose view has closed drops values and ends the binding")
    func closedView() async throws {
        let server = try await server.value
        let view = try WebView()
        let applied = Mutex(0)
        let binder = Binder<URL>(view, isGone: { $0.isClosed }) { view, url in
            applied.withLock { $0 += 1 }
            _ = try? view.load(url)
        }
        #expect(await binder.on(server.url("/page")))
        view.close()
        #expect(await binder.on(server.url("/page")) == false)
        let token = [server.url("/page"), server.url("/page")].async.bind(to: binder)
        try await withDeadline("the binding to end") { await token.ended() }
        #expect(applied.withLock { $0 } == 1)
    }

    @Test("cancelling a binding stops it: nothing sent after the cancel is applied")
    func cancelStops() async throws {
        let view = try WebView()
        defer { view.close() }
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let values = view.rx.javaScriptEnabled
        let iterator = EventLog(values)
        #expect(try await iterator.next() == true)
        let token = stream.bind(to: view.rx.javaScriptEnabled)
        continuation.yield(false)
        #expect(try await iterator.next() == false)
        token.cancel()
        try await withDeadline("the binding to end") { await token.ended() }
        continuation.yield(true)
        continuation.finish()
        #expect(view.javaScriptEnabled == false)
        view.close()
        #expect(try await iterator.next() == nil)  // `true` never reached the view
    }

    @Test("a failing source ends the binding without touching the view")
    func failingSource() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let started = view.rx.didStartProvisionalNavigation
        let token = FailingSequence(before: [server.url("/page")], after: [server.url("/status/404")])
            .bind(to: view.rx.load)
        try await withDeadline("the binding to end") { await token.ended() }
        let iterator = EventLog(started)
        #expect(try await iterator.next()?.url == server.url("/page"))
        #expect(view.activeNavigation == nil || view.activeNavigation?.url == server.url("/page"))
        view.close()
        #expect(try await iterator.next() == nil)  // nothing else was loaded
    }

    @Test("control properties replay the current value, then changes, skipping repeats")
    func propertyReplay() async throws {
        let view = try WebView(configuration: .init(userAgent: "first"))
        defer { view.close() }
        let agents = view.rx.userAgent
        let iterator = EventLog(agents)
        #expect(try await iterator.next() == "first")
        let token = ["first", "second", "second", "third"].async.bind(to: view.rx.userAgent)
        try await withDeadline("the binding to end") { await token.ended() }
        #expect(try await iterator.next() == "second")
        #expect(try await iterator.next() == "third")
        let late = EventLog(view.rx.userAgent)
        #expect(try await late.next() == "third")
        // The page sees it.
        let finished = EventLog(view.rx.didFinish)
        try view.loadHTML("<title>ua</title>", baseURL: nil)
        _ = try await finished.next()
        #expect(try await view.rx.evaluate("navigator.userAgent") == .string("third"))
    }

    @Test("events send nothing on subscription; properties send their current value")
    func eventsVersusProperties() async throws {
        let view = try WebView()
        let finished = view.rx.didFinish
        let loading = view.rx.isLoading
        view.close()
        let finishedIterator = EventLog(finished)
        let loadingIterator = EventLog(loading)
        #expect(try await finishedIterator.next() == nil)
        #expect(try await loadingIterator.next() == false)
        #expect(try await loadingIterator.next() == nil)
    }

    struct Page: Decodable, Equatable { let title: String; let count: Int }

    @Test("rx.evaluate: typed values and typed errors")
    func evaluate() async throws {
        let view = try WebView()
        defer { view.close() }
        let finished = EventLog(view.rx.didFinish)
        try view.loadHTML("<title>T</title>", baseURL: nil)
        _ = try await finished.next()
        #expect(try await view.rx.evaluate("({title: document.title, count: 2})", as: Page.self) == Page(title: "T", count: 2))
        await #expect(throws: JavaScriptError.exception(message: "Error: boom", line: 1)) {
            try await view.rx.evaluate("throw new Error('boom')")
        }
        do {
            _ = try await view.rx.evaluate("({title: 'T', count: [1]})", as: Page.self)
            Issue.record("must not decode")
        } catch {
            guard case .decodingFailed(let path, _) = error else { throw error }
            #expect(path == ".count")
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
