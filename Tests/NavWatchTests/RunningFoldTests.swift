import Foundation
@testable import NavWatch
import NavWatchTestSupport
import Testing

/// The one way a load is driven: the view feeds its navigations' folds the
/// moment it emits each event.
@Suite("RunningFold: a navigation's events folded as the view emits them")
@WebKitActor
struct RunningFoldTests {
    @Test("a load's fold has its redirects, commit, finish and title; stop() takes it off the view")
    func loadFolding() async throws {
        let server = try await TestSite.http.value
        let view = try WebView()
        defer { view.close() }
        let fold = try view.loadFolding(server.url("/redirect/2"), timeout: .seconds(20))
        #expect(view.runningFolds.count == 1)
        await fold.wait(until: { $0.isEnded }, deadline: .now + eventDeadline)
        let state = fold.stop()
        #expect(state.stage == .finished && state.title == "Plain" && state.httpStatus == 200)
        #expect(state.redirects.map { "\($0.url.path) \($0.status)" } == ["/redirect/2 301", "/redirect/1 302"])
        #expect(view.runningFolds.isEmpty)
    }

    @Test("a fold of the next navigation follows the first that starts after it, not the page shown")
    func nextNavigation() async throws {
        let server = try await TestSite.http.value
        let view = try WebView()
        defer { view.close() }
        let first = try view.loadFolding(server.url("/page"), timeout: .seconds(20))
        await first.wait(until: { $0.isEnded }, deadline: .now + eventDeadline)
        _ = first.stop()
        let next = view.foldNextNavigation()
        #expect(!next.hasStarted)
        _ = try await view.evaluateJavaScript("location.href = '/status/404'; 0")
        await next.wait(until: { $0.isEnded }, deadline: .now + eventDeadline)
        #expect(next.hasStarted && next.state.navigation.origin == .page)
        #expect(next.state.stage == .finished && next.state.httpStatus == 404 && next.state.title == "Missing")
        _ = next.stop()
    }

    @Test("closing the view ends the navigation and the wait at once")
    func viewClosed() async throws {
        let server = try await TestSite.http.value
        let view = try WebView()
        let fold = try view.loadFolding(server.url("/hang"), timeout: .seconds(60))
        let started = ContinuousClock.now
        let closing = Task { @WebKitActor in
            try? await Task.sleep(for: .milliseconds(300))
            view.close()
        }
        await fold.wait(until: { _ in false }, deadline: .now + .seconds(30))
        await closing.value
        #expect(fold.hasEnded && fold.state.isEnded && fold.state.stage == .failed)
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
