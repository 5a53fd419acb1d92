import CNavShim
import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
import Testing
import WebKitThread

/// Counts the shim's live objects, which only means something when no other
/// test creates views at the same time: `Scripts/test` runs this suite in a
/// process of its own (`--filter ResourceLeakTests`), and the main run skips it.
@Suite("ResourceLeakTests", .serialized)
struct ResourceLeakTests {
    /// Every count of the shim's live objects is what it was `before`.
    private func expectNothingLeft(since before: nw_stats, sourceLocation: SourceLocation = #_sourceLocation) {
        let after = nw_stats_get()
        #expect(after.views == before.views, sourceLocation: sourceLocation)
        #expect(after.signal_handlers == before.signal_handlers, sourceLocation: sourceLocation)
        #expect(after.user_contexts == before.user_contexts, sourceLocation: sourceLocation)
        #expect(after.tracked_resources == before.tracked_resources, sourceLocation: sourceLocation)
        #expect(after.evaluations == before.evaluations, sourceLocation: sourceLocation)
        #expect(after.decisions == before.decisions, sourceLocation: sourceLocation)
        #expect(after.downloads == before.downloads, sourceLocation: sourceLocation)
    }

    @Test("200 loads and closes leave no view, signal handler, context or resource behind")
    @WebKitActor func closingReleasesEverything() async throws {
        let server = try await TestSite.http.value
        let before = nw_stats_get()
        for index in 1...200 {
            let recorder = Recorder(base: server.baseURL)
            let view = try recorder.makeView()
            try view.load(server.url(index.isMultiple(of: 2) ? "/page" : "/alert"))
            await recorder.waitForEnd(of: 1)
            #expect(recorder.lines.last == "#1 finish")
            view.close()
        }
        expectNothingLeft(since: before)
    }

    @Test("a view dropped without close() is torn down on the WebKit thread")
    @WebKitActor func droppingReleases() async throws {
        let server = try await TestSite.http.value
        let before = nw_stats_get()
        weak var weakView: WebView?
        do {
            let recorder = Recorder(base: server.baseURL)
            let view = try WebView()
            weakView = view
            view.navigationDelegate = recorder
            try view.load(server.url("/page"))
            await recorder.waitForEnd(of: 1)
        }
        #expect(weakView == nil)
        let after = nw_stats_get()
        #expect(after.views == before.views)
        #expect(after.signal_handlers == before.signal_handlers)
        #expect(after.user_contexts == before.user_contexts)
        #expect(after.evaluations == before.evaluations)
        #expect(after.decisions == before.decisions)
    }

    @Test("a window the page opens makes no view unless awaited; a popup's view is released when closed")
    @WebKitActor func popupsReleased() async throws {
        let server = try await TestSite.http.value
        let before = nw_stats_get()
        do {
            let recorder = Recorder(base: server.baseURL)
            let view = try recorder.makeView()
            try view.load(server.url("/window"))  // opens /page from its load event
            await recorder.wait { $0.contains("new-window /page") }
            #expect(recorder.lines.contains("new-window /page"))
            #expect(nw_stats_get().views == before.views + 1)
            let popup = try await view.waitForPopup { try view.load(server.url("/window")) }
            #expect(nw_stats_get().views == before.views + 2)
            let opened = Recorder(base: server.baseURL)
            popup.navigationDelegate = opened
            await opened.wait { $0.contains { $0.hasSuffix(" finish") } }
            #expect(popup.url?.path == "/page")
            popup.close()
            view.close()
        }
        expectNothingLeft(since: before)
    }

    @Test("an isolated view has a web context and a network process of its own, both gone once it and its popup close")
    @WebKitActor func isolatedContextsReleased() async throws {
        let server = try await TestSite.http.value
        let before = nw_stats_get()
        let networkProcesses = { ProcessTree.descendants(of: getpid()).values.filter { $0.name.hasPrefix("WebKitNetwork") }.count }
        let processesBefore = networkProcesses()
        for _ in 1...5 {
            let recorder = Recorder(base: server.baseURL)
            let view = try recorder.makeView(WebViewConfiguration(storage: .isolated))
            let popup = try await view.waitForPopup { try view.load(server.url("/window")) }
            #expect(nw_stats_get().web_contexts == before.web_contexts + 1)
            #expect(networkProcesses() == processesBefore + 1)
            popup.close()
            view.close()
            let deadline = ContinuousClock.now + .seconds(10)
            while (nw_stats_get().web_contexts != before.web_contexts || networkProcesses() != processesBefore)
                    && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(nw_stats_get().web_contexts == before.web_contexts)
            #expect(networkProcesses() == processesBefore)
        }
        expectNothingLeft(since: before)  // shared contexts are kept for the process, so not counted there
    }

    @Test("a download written for a wait leaves nothing behind, nor does one dropped without a wait")
    @WebKitActor func downloadsReleased() async throws {
        let server = try await TestSite.http.value
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = nw_stats_get()
        do {
            let recorder = Recorder(base: server.baseURL)
            let view = try recorder.makeView()
            let file = try await view.waitForDownload(into: directory, timeout: .seconds(20)) {
                try view.load(server.url("/download"))
            }
            #expect(file.path.deletingLastPathComponent().path == directory.path)
            await recorder.waitForEnd(of: 1)
            try view.load(server.url("/download"))  // no wait: dropped
            await recorder.waitForEnd(of: 2)
            view.close()
        }
        expectNothingLeft(since: before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }
}
