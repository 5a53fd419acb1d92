import Foundation
import LoopbackServer
import NavWatch
@testable import NavWatchRx
import Synchronization
import Testing
import WebKitThread

private let server = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// A sequence that yields its values, then fails.
private struct FailingSequence: AsyncSequence, Sendable {
    typealias Element = URL
    struct Broken: Error {}
    let values: [URL]

    struct Iterator: AsyncIteratorProtocol {
        var values: [URL]
        mutating func next() async throws -> URL? {
            guard !values.isEmpty else { throw Broken() }
            return values.removeFirst()
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(values: values) }
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
        await token.ended()
        // A load that comes before the previous one finished ends it (as
        // cancelled), so the first two may finish or be cancelled; the last finishes.
        var ends: [NavigationEvent] = []
        for await event in events where event.isTerminal {
            ends.append(event)
            if ends.count == 3 { break }
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
        await token.ended()
        #expect(applied.withLock { $0 } == 1)
    }

    @Test("cancelling a binding stops it")
    func cancelStops() async throws {
        let view = try WebView()
        defer { view.close() }
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let values = view.rx.javaScriptEnabled
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == true)
        let token = stream.bind(to: view.rx.javaScriptEnabled)
        continuation.yield(false)
        #expect(await iterator.next() == false)
        token.cancel()
        await token.ended()
        continuation.yield(true)
        continuation.finish()
        #expect(view.javaScriptEnabled == false)
    }

    @Test("a failing source ends the binding without touching the view")
    func failingSource() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let started = view.rx.didStartProvisionalNavigation
        let token = FailingSequence(values: [server.url("/page")]).bind(to: view.rx.load)
        await token.ended()
        var iterator = started.makeAsyncIterator()
        #expect(await iterator.next()?.url == server.url("/page"))
        #expect(view.activeNavigation == nil || view.activeNavigation?.url == server.url("/page"))
        view.close()
        #expect(await iterator.next() == nil)  // nothing else was loaded
    }

    @Test("control properties replay the current value, then changes, skipping repeats")
    func propertyReplay() async throws {
        let view = try WebView(configuration: .init(userAgent: "first"))
        defer { view.close() }
        let agents = view.rx.userAgent
        var iterator = agents.makeAsyncIterator()
        #expect(await iterator.next() == "first")
        let token = ["first", "second", "second", "third"].async.bind(to: view.rx.userAgent)
        await token.ended()
        #expect(await iterator.next() == "second")
        #expect(await iterator.next() == "third")
        var late = view.rx.userAgent.makeAsyncIterator()
        #expect(await late.next() == "third")
        // The page sees it.
        var finished = view.rx.didFinish.makeAsyncIterator()
        try view.loadHTML("<title>ua</title>", baseURL: nil)
        _ = await finished.next()
        #expect(try await view.rx.evaluate("navigator.userAgent") == .string("third"))
    }

    @Test("events send nothing on subscription; properties send their current value")
    func eventsVersusProperties() async throws {
        let view = try WebView()
        let finished = view.rx.didFinish
        let loading = view.rx.isLoading
        view.close()
        var finishedIterator = finished.makeAsyncIterator()
        var loadingIterator = loading.makeAsyncIterator()
        #expect(await finishedIterator.next() == nil)
        #expect(await loadingIterator.next() == false)
        #expect(await loadingIterator.next() == nil)
    }

    struct Page: Decodable, Equatable { let title: String; let count: Int }

    @Test("rx.evaluate: typed values and typed errors")
    func evaluate() async throws {
        let view = try WebView()
        defer { view.close() }
        var finished = view.rx.didFinish.makeAsyncIterator()
        try view.loadHTML("<title>T</title>", baseURL: nil)
        _ = await finished.next()
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
