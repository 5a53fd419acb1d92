import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
@testable import NavWatchRx
import Testing
import WebKitThread

private let server = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// A forward delegate that counts every event it receives.
@WebKitActor
private final class EventCounter: NavigationDelegate {
    var count = 0

    func webView(_ webView: WebView, didReceive event: WebViewEvent) {
        count += 1
    }
}

/// What the closures of a test's subscriptions saw, and when.
@WebKitActor
private final class Record {
    var events: [String] = []
    /// For each event, how many events the delegate had received beyond it.
    var delegateAhead: [Int] = []
    var titleAtFinish: [String?] = []
    var finishes: [Navigation] = []
    var titles: [String?] = []
    var completions = 0
    var otherCompletions = 0
    var disposable: Disposable?
}

@Suite("Subscribing with closures on the WebKit thread")
@WebKitActor
struct SubscribeTests {
    @Test("a subscribed closure gets each event in the signal handler, right after the delegate: a redirected load, in order")
    func synchronousDelivery() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let delegate = EventCounter()
        let token = view.rx.delegate.installForwardDelegate(delegate, retainDelegate: false)
        defer { token.cancel() }
        let record = Record()
        var seen = 0
        view.rx.events.subscribe(onNext: { event in
            seen += 1
            // The delegate has had this event and none after it: no hop, no queue.
            record.delegateAhead.append(delegate.count - seen)
            guard case .navigation(let navigation) = event else { return }
            record.events.append(describe(navigation, base: server.baseURL))
            if case .didFinish = navigation { record.titleAtFinish.append(view.title) }
        })
        _ = try await view.rx.pageLoad(server.url("/redirect/3"))
        // pageLoad's task resumes after the finish's signal handler returned,
        // so every closure call of this load has been made.
        #expect(record.events == ["start /redirect/3", "redirect /redirect/2", "redirect /redirect/1", "redirect /page",
                                  "commit 200", "finish"])
        #expect(record.titleAtFinish == ["Plain"])
        #expect(record.delegateAhead.count == seen && seen > record.events.count)
        #expect(record.delegateAhead.allSatisfy { $0 == 0 })
    }

    @Test("events produced between obtaining an observable and subscribing are handed over during subscribe, then later ones")
    func heldEventsFirst() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let finished = view.rx.didFinish
        let titles = view.rx.title
        let first = try await view.rx.pageLoad(server.url("/page"))
        let record = Record()
        finished.subscribe(onNext: { record.finishes.append($0) })
        titles.subscribe(onNext: { record.titles.append($0) })
        #expect(record.finishes == [first.navigation])
        #expect(record.titles == [nil, "Plain"])
        let second = try await view.rx.pageLoad(server.url("/status/404"))
        #expect(record.finishes == [first.navigation, second.navigation])
    }

    @Test("dispose ends a subscription at once; closing the view completes the others once; later ones complete at once")
    func disposeAndComplete() async throws {
        let server = try await server.value
        let view = try WebView()
        let proxy = view.rx.delegate
        let record = Record()
        let disposed = view.rx.didFinish.subscribe(onNext: { record.finishes.append($0) },
                                                   onCompleted: { record.otherCompletions += 1 })
        view.rx.isLoading.subscribe(onNext: { _ in }, onCompleted: { record.completions += 1 })
        #expect(proxy.subscriberCount == 2)
        disposed.dispose()
        disposed.dispose()
        #expect(proxy.subscriberCount == 1)
        let load = try await view.rx.pageLoad(server.url("/page"))
        guard case .finished = load else { Issue.record("the load did not finish: \(load)"); return }
        #expect(record.finishes.isEmpty)
        view.close()
        #expect(record.completions == 1)
        #expect(record.otherCompletions == 0)
        #expect(proxy.subscriberCount == 0)
        view.rx.didFinish.subscribe(onNext: { record.finishes.append($0) }, onCompleted: { record.completions += 1 })
        #expect(record.completions == 2)
        #expect(record.finishes.isEmpty)
    }

    @Test("a subscription completes once when its view is deinitialised without close()")
    func completionOnDeinit() async throws {
        var view: WebView? = try WebView()
        let record = Record()
        view!.rx.navigationEvents.subscribe(onNext: { _ in record.events.append("event") },
                                            onCompleted: { record.completions += 1 })
        view = nil
        try await withDeadline("the subscription to complete") {
            while await record.completions == 0 { await Task.yield() }
        }
        #expect(record.completions == 1)
        #expect(record.events.isEmpty)
    }

    @Test("an observable used once ends at once when used again")
    func usedOnce() async throws {
        let view = try WebView()
        defer { view.close() }
        let record = Record()
        let events = view.rx.navigationEvents
        events.subscribe(onNext: { _ in })
        events.subscribe(onNext: { _ in }, onCompleted: { record.completions += 1 })
        #expect(record.completions == 1)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        let iterated = view.rx.navigationEvents
        let live = iterated.makeAsyncIterator()
        iterated.subscribe(onNext: { _ in }, onCompleted: { record.completions += 1 })
        #expect(record.completions == 2)
        #expect(view.rx.delegate.subscriberCount == 2)  // the first subscription and the live iterator
        _ = consume live
    }

    @Test("what a closure makes the view emit reaches every subscriber after the event it ran for")
    func reentrantEmission() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let record = Record()
        let stopper = Record()
        view.rx.navigationEvents.subscribe(onNext: { event in
            stopper.events.append(describe(event, base: server.baseURL))
            if case .didCommit = event { view.stop() }  // emits the navigation's failure at once
        })
        view.rx.navigationEvents.subscribe(onNext: { record.events.append(describe($0, base: server.baseURL)) })
        let load = try await view.rx.pageLoad(server.url("/page"))
        guard case .failed(_, let error, _) = load else { Issue.record("the load was not stopped: \(load)"); return }
        #expect(error.kind == .cancelled)
        #expect(stopper.events == ["start /page", "commit 200", "fail cancelled"])
        #expect(record.events == ["start /page", "commit 200", "fail cancelled"])
    }

    @Test("a closure that closes the view: the others still get the event it ran for, then the rest, then completion")
    func closeFromClosure() async throws {
        let server = try await server.value
        let view = try WebView()
        let record = Record()
        let done = AsyncStream<Void>.makeStream()
        view.rx.navigationEvents.subscribe(onNext: { event in
            if case .didCommit = event { view.close() }
        })
        view.rx.navigationEvents.subscribe(onNext: { record.events.append(describe($0, base: server.baseURL)) },
                                           onCompleted: { record.completions += 1; done.continuation.finish() })
        try view.load(server.url("/page"))
        try await withDeadline("the subscription to complete") { for await _ in done.stream {} }
        #expect(record.events == ["start /page", "commit 200", "fail cancelled"])
        #expect(record.completions == 1)
    }

    @Test("disposing of a second use leaves the first subscription running")
    func secondUseDispose() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let record = Record()
        let events = view.rx.navigationEvents
        events.subscribe(onNext: { record.events.append(describe($0, base: server.baseURL)) })
        events.subscribe(onNext: { _ in }, onCompleted: { record.completions += 1 }).dispose()
        #expect(record.completions == 1)
        _ = try await view.rx.pageLoad(server.url("/page"))
        #expect(record.events == ["start /page", "commit 200", "finish"])
    }

    @Test("an observable of a stream of your own: each element a hop later, none after dispose, completion at its end")
    func streamBacked() async throws {
        let record = Record()
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let disposable = Observable(stream).subscribe(onNext: { record.events.append("\($0)") },
                                                       onCompleted: { record.completions += 1 })
        continuation.yield(1)
        continuation.yield(2)
        try await withDeadline("two elements") { while await record.events.count < 2 { await Task.yield() } }
        disposable.dispose()
        continuation.yield(3)
        continuation.finish()
        let (second, secondContinuation) = AsyncStream<Int>.makeStream()
        Observable(second).subscribe(onNext: { record.events.append("second \($0)") },
                                     onCompleted: { record.otherCompletions += 1 })
        secondContinuation.yield(4)
        secondContinuation.finish()
        try await withDeadline("the second stream to end") { while await record.otherCompletions == 0 { await Task.yield() } }
        #expect(record.events == ["1", "2", "second 4"])
        #expect(record.completions == 0)
        #expect(record.otherCompletions == 1)
    }

    @Test("a closure may dispose of its own subscription and subscribe again while it runs")
    func reentrant() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let record = Record()
        record.disposable = view.rx.navigationEvents.subscribe(onNext: { event in
            record.events.append(describe(event, base: server.baseURL))
            record.disposable?.dispose()
            view.rx.didFinish.subscribe(onNext: { record.finishes.append($0) })
        })
        let load = try await view.rx.pageLoad(server.url("/page"))
        #expect(record.events == ["start /page"])
        #expect(record.finishes == [load.navigation])
        #expect(view.rx.delegate.subscriberCount == 1)
    }
}
