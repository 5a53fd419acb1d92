import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
@testable import NavWatchRx
import Testing
import WebKitThread

private let server = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// The events up to and including the first terminal one, within the event deadline.
private func untilTerminal(_ events: Observable<NavigationEvent>) async throws -> [NavigationEvent] {
    try await EventLog(events).until("a terminal event", \.isTerminal)
}

@Suite("Typed observables of WebView")
@WebKitActor
struct ObservableTests {
    @Test("two subscribers each get the full ordered sequence of a redirected load")
    func twoSubscribers() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let first = view.rx.navigationEvents
        let second = view.rx.navigationEvents
        try view.load(server.url("/redirect/3"))
        let expected = ["start /redirect/3", "redirect /redirect/2", "redirect /redirect/1", "redirect /page",
                        "commit 200", "finish"]
        let logs = [EventLog(first), EventLog(second)]
        for log in logs {
            #expect(try await log.until("a terminal event", \.isTerminal).map { describe($0, base: server.baseURL) } == expected)
        }
        view.close()
        for log in logs {
            #expect(try await log.rest().isEmpty)  // nothing after the finish, and the stream ends with the view
        }
    }

    @Test("rx.sameDocumentNavigation: push, replace, pop and fragment navigations, each once, in order, with the URL and kind; none for the load")
    func sameDocumentKinds() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let log = EventLog(view.rx.sameDocumentNavigation)
        let load = try await view.rx.pageLoad(server.url("/history"))
        var seen: [String] = []
        for _ in 0..<8 {
            guard let change = try await log.next("a same-document navigation") else { break }
            #expect(change.navigation == load.navigation)
            seen.append("\(change.kind) \(change.url.absoluteString.replacingOccurrences(of: server.baseURL.absoluteString, with: ""))")
        }
        #expect(seen == ["replace /h/start", "push /h/one", "replace /h/two", "fragment /h/two#frag",
                         "pop /h/two", "pop /h/start", "pop /h/two", "fragment /h/two#r"])
        view.close()
        #expect(try await log.rest().isEmpty)
    }

    @Test("nothing is lost between obtaining an observable and iterating it")
    func noLostEvents() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let started = view.rx.didStartProvisionalNavigation
        let committed = view.rx.didCommit
        let finished = view.rx.didFinish
        let first = try await view.rx.pageLoad(server.url("/page"))
        let second = try await view.rx.pageLoad(server.url("/status/404"))
        // Only now, both loads over, does anyone start iterating.
        let navigation = first.navigation
        #expect(second.navigation.id != navigation.id)
        let startIterator = EventLog(started)
        let commitIterator = EventLog(committed)
        let finishIterator = EventLog(finished)
        #expect(try await startIterator.next() == navigation)
        #expect(try await commitIterator.next()?.1.statusCode == 200)
        #expect(try await finishIterator.next() == navigation)
        #expect(try await commitIterator.next()?.1.statusCode == 404)
        view.close()
        #expect(try await startIterator.rest() == [second.navigation])
        #expect(try await finishIterator.rest() == [second.navigation])
        #expect(try await commitIterator.rest().isEmpty)
    }

    @Test("failures are values on didFailProvisionalNavigation")
    func failuresAreValues() async throws {
        let view = try WebView()
        defer { view.close() }
        let failures = view.rx.didFailProvisionalNavigation
        try view.load(URL(string: "http://127.0.0.1:1/")!)
        let iterator = EventLog(failures)
        #expect(try await iterator.next()?.1.kind == .blockedPort)
    }

    @Test("properties replay their current value to a late subscriber, then changes, skipping repeats")
    func propertyReplay() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let early = EventLog(view.rx.title)
        #expect(try await early.next() == .some(nil))
        let loadingChanges = EventLog(view.rx.isLoading)
        #expect(try await loadingChanges.next() == false)
        try view.load(server.url("/page"))
        #expect(try await early.next() == "Plain")
        // The title comes before the finish; wait for the loading to end too.
        #expect(try await loadingChanges.until("the loading to end") { $0 == false }.first == true)
        let late = EventLog(view.rx.title)
        #expect(try await late.next() == "Plain")
        let loading = EventLog(view.rx.isLoading)
        #expect(try await loading.next() == false)
        view.close()
        #expect(try await late.next() == nil)
        #expect(try await loading.next() == nil)
    }

    @Test("when pageLoad returns a finish, view.title and the title rx.title replays are the document's")
    func titleAtFinish() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        for (path, title) in [("/page", "Plain"), ("/script-title", "Scripted"), ("/no-title", nil)] as [(String, String?)] {
            let outcome = try await view.rx.pageLoad(server.url(path))
            guard case .finished(_, _, let finishedTitle) = outcome else { Issue.record("\(outcome)"); return }
            #expect(finishedTitle == title)
            #expect(view.title == title)
            #expect(try await EventLog(view.rx.title).next("the replayed title") == .some(title))
        }
    }

    @Test("every observable completes when the view closes, and later ones end at once")
    func completionOnClose() async throws {
        // Requests that never get an answer hold one of the network process's
        // connections to their host: such tests get a server of their own.
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        let view = try WebView()
        let events = view.rx.navigationEvents
        let url = view.rx.url
        try view.load(server.url("/hang"))
        view.close()
        let all = try await untilTerminal(events)
        #expect(all.map { describe($0, base: server.baseURL) } == ["fail-provisional cancelled"])
        let urls = try await EventLog(url).rest()
        #expect(urls == [nil, server.url("/hang")])
        let after = EventLog(view.rx.didFinish)
        #expect(try await after.next() == nil)
    }

    @Test("observables complete when the view is deinitialised")
    func completionOnDeinit() async throws {
        var view: WebView? = try WebView()
        let events = view!.rx.navigationEvents
        view = nil
        let iterator = EventLog(events)
        #expect(try await iterator.next() == nil)
    }

    @Test("cancelling iterations brings the subscriber count back to zero")
    func subscriberCountAfterCancel() async throws {
        let view = try WebView()
        defer { view.close() }
        let proxy = view.rx.delegate
        #expect(proxy.subscriberCount == 0)
        let observables = [view.rx.navigationEvents, view.rx.navigationEvents]
        let title = view.rx.title
        #expect(proxy.subscriberCount == 3)
        let tasks = observables.map { observable in Task { for await _ in observable {} } }
        let titleTask = Task { for await _ in title {} }
        for task in tasks { task.cancel() }
        titleTask.cancel()
        for task in tasks + [titleTask] {
            try await withDeadline("a cancelled iteration to end") { await task.value }
        }
        #expect(proxy.subscriberCount == 0)
    }

    @Test("1,000 subscribe and cancel cycles leave no subscriber behind")
    func thousandCycles() async throws {
        let view = try WebView()
        defer { view.close() }
        let proxy = view.rx.delegate
        for index in 0..<1_000 {
            if index.isMultiple(of: 2) {
                _ = view.rx.didFinish  // dropped without iterating
            } else {
                let progress = view.rx.estimatedProgress
                let task = Task { for await _ in progress {} }
                task.cancel()
                try await withDeadline("a cancelled iteration to end") { await task.value }
            }
        }
        #expect(proxy.subscriberCount == 0)
    }

    @Test("pageLoad returns the finish with its response, or the failure as a value")
    func pageLoad() async throws {
        // Requests that never get an answer hold one of the network process's
        // connections to their host: such tests get a server of their own.
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        let view = try WebView()
        defer { view.close() }
        let finished = try await view.rx.pageLoad(server.url("/redirect/1"))
        guard case .finished(let navigation, let response?, "Plain") = finished else { Issue.record("\(finished)"); return }
        #expect(navigation.url == server.url("/redirect/1"))
        #expect(response.url == server.url("/page"))
        let timedOut = try await view.rx.pageLoad(server.url("/hang"), timeout: .seconds(1))
        guard case .failed(_, let error, nil) = timedOut else { Issue.record("\(timedOut)"); return }
        #expect(error.kind == .timeout)
    }

    @Test("cancelling the task awaiting pageLoad stops the load, which ends as cancelled")
    func pageLoadCancel() async throws {
        // Requests that never get an answer hold one of the network process's
        // connections to their host: such tests get a server of their own.
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        let view = try WebView()
        defer { view.close() }
        let started = view.rx.didStartProvisionalNavigation
        let task = Task { try await view.rx.pageLoad(server.url("/hang")) }
        let iterator = EventLog(started)
        _ = try await iterator.next("the start of the load")
        task.cancel()
        let outcome = try await withDeadline("the cancelled load's outcome") { try await task.value }
        guard case .failed(_, let error, _) = outcome else { Issue.record("\(outcome)"); return }
        #expect(error.kind == .cancelled)
    }
}
