import Foundation
import NavWatchTesting
import Testing

/// `goto`, `reload`, `goBack` and `goForward` wait for the navigation they
/// cause and say how it ended.
@Suite("The page: goto, reload, back and forward")
@WebKitActor
struct PageTests {
    @Test("back and forward across documents return their outcomes; with no step to take, nil at once")
    func history() async throws {
        let server = try await LocatorPages.server.value
        let view = try WebView()
        defer { view.close() }
        #expect(try await view.goBack() == nil)
        guard case .finished(_, let response, let title) = try await view.goto(server.url("/locators")) else {
            Issue.record("the first page did not load"); return
        }
        #expect(response?.statusCode == 200 && title == "Locators")
        try await view.goto(server.url("/form"))
        #expect(try await view.title() == "Form")

        guard case .finished(_, _, let back)? = try await view.goBack() else { Issue.record("going back did not load"); return }
        #expect(back == "Locators")
        #expect(try await view.currentURL() == server.url("/locators").absoluteString)
        guard case .finished(_, _, let forward)? = try await view.goForward() else { Issue.record("going forward did not load"); return }
        #expect(forward == "Form")
        #expect(try await view.goForward() == nil)

        guard case .finished(let navigation, _, let reloaded)? = try await view.reload() else { Issue.record("the reload did not load"); return }
        #expect(navigation.origin == .reload && reloaded == "Form")
    }

    @Test("back and forward within a document: nil once the page had its popstate")
    func sameDocument() async throws {
        let server = try await LocatorPages.server.value
        let view = try WebView()
        defer { view.close() }
        try await view.goto(server.url("/locators"))
        try await view.getByRole("link", name: "Back to top").click()
        #expect(try await view.currentURL().hasSuffix("/locators#top"))
        #expect(try await view.goBack() == nil)
        #expect(try await view.currentURL().hasSuffix("/locators"))
        #expect(try await view.goForward() == nil)
        try await expect(view).toHaveURL(server.url("/locators").absoluteString + "#top")
    }
}
