import Foundation
import LoopbackServer
import NavWatch
import NavWatchTestSupport
import Testing

@Suite("Screenshots of a view, in memory")
@WebKitActor
struct ViewScreenshotTests {
    @Test("the viewport as PNG, scaled as JPEG, the whole document, and none once the view is closed")
    func screenshots() async throws {
        let server = try await LoopbackServer.start(route: { _ in
            .html("<!doctype html><title>tall</title><body style='margin:0'><div style='height:2000px;background:#08f'></div>")
        })
        defer { Task { await server.shutdown() } }
        let view = try WebView(configuration: WebViewConfiguration(viewportWidth: 1000, viewportHeight: 600))
        let fold = try view.loadFolding(server.url("/"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished)

        #expect(imageKind(try await view.screenshot()) == "png 1000x600")
        #expect(imageKind(try await view.screenshot(type: .jpeg(quality: 50), maxWidth: 500)) == "jpeg 500x300")
        // Not scaled up: a narrower picture than maxWidth stays as it is.
        #expect(imageKind(try await view.screenshot(type: .jpeg(), maxWidth: 4000)) == "jpeg 1000x600")
        #expect(imageKind(try await view.screenshot(fullPage: true)) == "png 1000x2000")

        view.close()
        await #expect(throws: WebViewError.closed) { try await view.screenshot() }
    }
}
