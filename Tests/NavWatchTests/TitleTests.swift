import Foundation
import NavWatch
import NavWatchTestSupport
import Testing

/// WebKit announces a document's title only after it reports the load
/// finished; the view must know it before it delivers the finish.
@Suite("The title when a page has finished")
@WebKitActor
struct TitleTests {
    /// Loads `paths` one after another in one view and returns the view's
    /// title as each finish was delivered.
    private func titlesAtFinish(_ paths: [String], configuration: WebViewConfiguration = .init()) async throws -> [String?] {
        let server = try await TestSite.http.value
        let recorder = Recorder(base: server.baseURL)
        let view = try recorder.makeView(configuration)
        defer { view.close() }
        for (index, path) in paths.enumerated() {
            try view.load(server.url(path))
            await recorder.waitForEnd(of: index + 1)
        }
        return recorder.titlesAtFinish
    }

    @Test("didFinish sees the document's title: from <title>, set by a script before load, or none")
    func titleAtFinish() async throws {
        let titles = try await titlesAtFinish(["/page", "/script-title", "/no-title", "/status/404", "/page"])
        #expect(titles == ["Plain", "Scripted", nil, "Missing", "Plain"])
    }

    @Test("with the page's JavaScript off, only <title> gives a title")
    func titleWithoutPageScripts() async throws {
        let titles = try await titlesAtFinish(["/script-title", "/page"], configuration: .init(javaScriptEnabled: false))
        #expect(titles == [nil, "Plain"])
    }
}
