import Foundation
@testable import NavWatch
import Testing

/// The one fold of a navigation, fed with the event orders a view produces.
@Suite("PageLoadState")
struct PageLoadStateTests {
    private static func url(_ path: String) -> URL { URL(string: "http://h\(path)")! }
    private static let navigation = Navigation(id: 7, url: url("/a"), origin: .load)
    private static let other = Navigation(id: 8, url: url("/other"), origin: .page)
    private static func response(_ path: String, _ status: Int = 200) -> NavigationResponse {
        NavigationResponse(url: url(path), statusCode: status, mimeType: "text/html", headers: [],
                           expectedContentLength: nil, suggestedFilename: nil, canShowMIMEType: true)
    }
    private static let timeout = NavigationError.navwatch(.timeout, .timeout, "too slow", url: url("/a"))

    private func fold(_ events: [WebViewEvent]) -> PageLoadState {
        var state = PageLoadState(navigation: Self.navigation)
        for event in events { state.apply(event) }
        return state
    }

    @Test("stages compare in the order a navigation reaches them, and are written by name")
    func stageOrder() throws {
        typealias Stage = PageLoadState.Stage
        #expect(Stage.allCases == [.requested, .provisional, .committed, .finished, .failed])
        #expect(Stage.allCases.shuffled().sorted() == Stage.allCases)
        #expect(Stage.requested < .provisional && Stage.provisional < .committed && !(Stage.committed < .committed))
        #expect(min(Stage.finished, .committed) == .committed && min(Stage.provisional, .committed) == .provisional)
        #expect(String(decoding: try JSONEncoder().encode([Stage.provisional]), as: UTF8.self) == #"["provisional"]"#)
        #expect(try JSONDecoder().decode([Stage].self, from: Data(#"["committed"]"#.utf8)) == [.committed])
    }

    @Test("a plain load: its stages, main response, resources and the title before the finish")
    func plainLoad() {
        let n = Self.navigation
        var state = PageLoadState(navigation: n)
        #expect(state.stage == .requested && state.outcome == nil)
        state.apply(.navigation(.didStartProvisionalNavigation(n)))
        #expect(state.stage == .provisional)
        state.apply(.resource(.started(id: 1, url: Self.url("/a"), method: "GET", isMainResource: true, headers: [])))
        state.apply(.navigation(.didCommit(n, Self.response("/a"))))
        #expect(state.stage == .committed && state.response == Self.response("/a"))
        state.apply(.resource(.finished(id: 1, url: Self.url("/a"), status: 200, mimeType: "text/html", headers: [])))
        state.apply(.propertyChange(.title(nil)))
        state.apply(.resource(.started(id: 2, url: Self.url("/img.png"), method: "GET", isMainResource: false, headers: [])))
        state.apply(.propertyChange(.title("A")))
        #expect(state.pendingRequests == [2: Self.url("/img.png")])
        state.apply(.navigation(.didFinish(n)))
        #expect(state.outcome == .finished(n, response: Self.response("/a"), title: "A"))
        #expect(state.resourceCount == 2 && state.failedResourceCount == 0)
        // A resource that ends after the page is still taken off the pending ones.
        state.apply(.resource(.finished(id: 2, url: Self.url("/img.png"), status: 200, mimeType: "image/png", headers: [])))
        #expect(state.pendingRequests.isEmpty)
        #expect(state.redirects.isEmpty && state.error == nil && state.download == nil)
    }

    @Test("the main resource's redirect hops, each with the status it answered; a subresource's are not hops")
    func redirects() {
        let n = Self.navigation
        let state = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .resource(.started(id: 1, url: Self.url("/a"), method: "GET", isMainResource: true, headers: [])),
            .navigation(.didReceiveServerRedirect(n, to: Self.url("/b"))),
            .resource(.redirected(id: 1, to: Self.url("/b"), status: 302, headers: [])),
            .resource(.redirected(id: 1, to: Self.url("/c"), status: 301, headers: [])),
            .navigation(.didCommit(n, Self.response("/c"))),
            .resource(.started(id: 2, url: Self.url("/s.css"), method: "GET", isMainResource: false, headers: [])),
            .resource(.redirected(id: 2, to: Self.url("/t.css"), status: 307, headers: [])),
            .navigation(.didFinish(n)),
        ])
        #expect(state.redirects == [.init(url: Self.url("/a"), status: 302), .init(url: Self.url("/b"), status: 301)])
        #expect(state.pendingRequests == [1: Self.url("/c"), 2: Self.url("/t.css")])
        #expect(state.response?.url == Self.url("/c"))
    }

    @Test("a timeout after the commit: the stage it was stuck in and the requests still pending")
    func timeoutWhileCommitted() {
        let n = Self.navigation
        let state = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .resource(.started(id: 1, url: Self.url("/a"), method: "GET", isMainResource: true, headers: [])),
            .navigation(.didCommit(n, Self.response("/a"))),
            .resource(.finished(id: 1, url: Self.url("/a"), status: 200, mimeType: "text/html", headers: [])),
            .resource(.started(id: 2, url: Self.url("/hang"), method: "GET", isMainResource: false, headers: [])),
            .navigation(.didFail(n, Self.timeout)),
        ])
        #expect(state.stage == .failed && state.lastStageBeforeEnd == .committed)
        #expect(state.outcome == .failed(n, Self.timeout, response: Self.response("/a")))
        #expect(state.pendingRequests == [2: Self.url("/hang")])
    }

    @Test("other navigations' events change nothing; after the end, no navigation event does")
    func onlyItsOwnEvents() {
        let n = Self.navigation, o = Self.other
        let state = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .navigation(.didCommit(o, Self.response("/other"))),
            .navigation(.didFinish(o)),
            .navigation(.didFailProvisionalNavigation(n, Self.timeout)),
            .navigation(.didCommit(n, Self.response("/a"))),
            .navigation(.didFinish(n)),
            .propertyChange(.title("late")),
        ])
        #expect(state.outcome == .failed(n, Self.timeout, response: nil))
        #expect(state.lastStageBeforeEnd == .provisional && state.title == nil)
    }

    @Test("a failed resource counts once, though WebKit reports its finish too")
    func failedResource() {
        let n = Self.navigation
        let error = NavigationError.navwatch(.other, .timeout, "x", url: Self.url("/gone.js"))
        let state = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .navigation(.didCommit(n, Self.response("/a"))),
            .resource(.started(id: 3, url: Self.url("/gone.js"), method: "GET", isMainResource: false, headers: [])),
            .resource(.failed(id: 3, url: Self.url("/gone.js"), error: error)),
            .resource(.finished(id: 3, url: Self.url("/gone.js"), status: 0, mimeType: nil, headers: [])),
        ])
        #expect(state.resourceCount == 1 && state.failedResourceCount == 1 && state.pendingRequests.isEmpty)
    }

    @Test("a request that starts before the commit is the document before's; so is one after a provisional failure")
    func requestsBeforeCommit() {
        let n = Self.navigation
        let committed = fold([
            .resource(.started(id: 1, url: Self.url("/before-start"), method: "GET", isMainResource: false, headers: [])),
            .navigation(.didStartProvisionalNavigation(n)),
            .resource(.started(id: 2, url: Self.url("/a"), method: "GET", isMainResource: true, headers: [])),
            .resource(.started(id: 3, url: Self.url("/before-commit"), method: "GET", isMainResource: false, headers: [])),
            .navigation(.didCommit(n, Self.response("/a"))),
            .resource(.started(id: 4, url: Self.url("/own.css"), method: "GET", isMainResource: false, headers: [])),
            .navigation(.didFinish(n)),
            .resource(.started(id: 5, url: Self.url("/after-finish"), method: "GET", isMainResource: false, headers: [])),
        ])
        #expect(committed.requests.map(\.id) == [2, 4, 5] && committed.resourceCount == 2)
        #expect(committed.pendingRequests == [2: Self.url("/a"), 4: Self.url("/own.css"), 5: Self.url("/after-finish")])
        let failed = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .resource(.started(id: 1, url: Self.url("/a"), method: "GET", isMainResource: true, headers: [])),
            .navigation(.didFailProvisionalNavigation(n, Self.timeout)),
            .resource(.started(id: 2, url: Self.url("/still-shown"), method: "GET", isMainResource: false, headers: [])),
        ])
        #expect(failed.requests.map(\.id) == [1] && failed.resourceCount == 1)
    }

    @Test("a title before the commit belongs to the document before; one after the end changes nothing")
    func titleWindow() {
        let n = Self.navigation
        let state = fold([
            .propertyChange(.title("previous page")),
            .navigation(.didStartProvisionalNavigation(n)),
            .propertyChange(.title("still the previous page")),
            .navigation(.didCommit(n, Self.response("/a"))),
            .navigation(.didFinish(n)),
            .propertyChange(.title("changed by a script later")),
        ])
        #expect(state.outcome == .finished(n, response: Self.response("/a"), title: nil))
    }

    @Test("the web process going away after the start, then the failure that ends the navigation")
    func webProcessTerminated() {
        let n = Self.navigation
        let crash = NavigationError.navwatch(.webProcessCrashed, .webProcessTerminated, "gone", url: Self.url("/a"))
        let state = fold([
            .navigation(.webContentProcessDidTerminate(.terminatedByAPI)),  // before the start: issued again
            .navigation(.didStartProvisionalNavigation(n)),
            .navigation(.webContentProcessDidTerminate(.crashed)),
            .navigation(.didFailProvisionalNavigation(n, crash)),
            .navigation(.webContentProcessDidTerminate(.terminatedByAPI)),
        ])
        #expect(state.webProcessTermination == .crashed)
        #expect(state.outcome == .failed(n, crash, response: nil))
    }

    @Test("a response that became a download is kept with the failure that follows")
    func download() {
        let n = Self.navigation
        let response = Self.response("/data.csv")
        let interrupted = NavigationError(kind: .policy, domain: "WebKitPolicyError", code: 102,
                                          message: "Frame load interrupted", failingURL: Self.url("/data.csv"))
        let state = fold([
            .navigation(.didStartProvisionalNavigation(n)),
            .navigation(.download(Download(navigation: n, url: Self.url("/data.csv"), response: response))),
            .navigation(.didFailProvisionalNavigation(n, interrupted)),
        ])
        #expect(state.download?.url == Self.url("/data.csv"))
        #expect(state.outcome == .failed(n, interrupted, response: nil))
    }

    @Test("console messages and page errors count for the navigation whose document they came from, also after the end")
    func consoleAttribution() {
        let n = Self.navigation
        func message(_ text: String, _ navigation: Navigation?) -> WebViewEvent {
            .consoleMessage(ConsoleMessage(level: .error, source: .consoleAPI, text: text, url: nil, line: nil,
                                           navigation: navigation))
        }
        let thrown = PageError(kind: .uncaughtException, message: "TypeError: x", url: Self.url("/a"), line: 3, column: 9,
                               stack: nil, navigation: n)
        let state = fold([
            message("from the page before", Self.other),
            .navigation(.didStartProvisionalNavigation(n)),
            message("the old page, while this one is provisional", Self.other),
            .navigation(.didCommit(n, Self.response("/a"))),
            message("mine", n),
            .pageError(thrown),
            .navigation(.didFinish(n)),
            message("mine, after the finish", n),
            message("unattributed", nil),
        ])
        #expect(state.consoleMessages.map(\.text) == ["mine", "mine, after the finish"])
        #expect(state.consoleCounts == [.error: 2])
        #expect(state.pageErrors == [thrown] && state.pageErrorCount == 1)
    }

    @Test("dialogs are the document's from its commit on, with their answers, also after the end")
    func dialogs() {
        var state = PageLoadState(navigation: Self.navigation)
        let early = ScriptDialog(kind: .alert, message: "before", defaultText: nil, answer: .accept)
        let asked = ScriptDialog(kind: .confirm, message: "Delete?", defaultText: nil, answer: .dismiss)
        let late = ScriptDialog(kind: .prompt, message: "Name?", defaultText: "Ada", answer: .acceptWithText("Grace"))
        state.apply(.navigation(.didStartProvisionalNavigation(Self.navigation)))
        state.apply(.navigation(.scriptDialog(early)))
        state.apply(.navigation(.didCommit(Self.navigation, Self.response("/a"))))
        state.apply(.navigation(.scriptDialog(asked)))
        state.apply(.navigation(.didFinish(Self.navigation)))
        state.apply(.navigation(.scriptDialog(late)))
        #expect(state.dialogs == [asked, late])
    }
}
