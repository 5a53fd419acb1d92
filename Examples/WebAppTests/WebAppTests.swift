import Foundation
import NavWatchRx
import NavWatchTesting
import Testing

/// The app, started once for the whole suite.
private let app = Task { try await WebApp.start() }

/// End-to-end tests of `WebApp` in a real engine, written as a user of
/// navwatch would write them: load, fill, click, and expect what the page did.
/// The README's "Testing your web app" and NavWatch.docc/TestingYourWebApp.md are built from this file.
@Suite("The web app, end to end")
@WebKitActor
struct WebAppTests {
    /// A fresh view with `path` loaded; each test closes its own.
    func open(_ path: String) async throws -> WebView {
        let app = try await app.value
        let view = try WebView(configuration: .testing)
        let outcome = try await view.rx.pageLoad(app.url(path))
        guard case .finished = outcome else {
            view.close()
            throw LoadFailed(path: path, outcome: outcome)
        }
        return view
    }

    struct LoadFailed: Error {
        let path: String
        let outcome: PageLoadOutcome
    }

    @Test("logging in redirects to the dashboard, which then lists the projects")
    func logIn() async throws {
        let view = try await open("/login")
        defer { view.close() }

        try await view.getByLabel("Email").fill("ada@example.org")
        try await view.getByLabel("Password").fill("correct horse battery staple")
        let outcome = try await view.getByRole("button", name: "Log in").click()

        guard case .finished(_, let response, let title)? = outcome else {
            Issue.record("the login did not load a page: \(String(describing: outcome))")
            return
        }
        #expect(title == "Dashboard")
        #expect(response?.url.path == "/dashboard")
        // The projects arrive 200 ms after the page: the assertion waits for them.
        try await expect(view.locator("#projects .project")).toHaveText(["navwatch"])
    }

    @Test("the home page logs no console errors and throws nothing")
    func homeIsClean() async throws {
        let view = try await open("/")
        defer { view.close() }

        #expect(view.consoleMessages.filter { $0.level == .error }.isEmpty)
        #expect(view.pageErrors.isEmpty)
    }

    @Test("the report page logs exactly one console error, from its own script")
    func reportLogsAnError() async throws {
        let view = try await open("/report")
        defer { view.close() }

        let errors = view.consoleMessages.filter { $0.level == .error }
        #expect(errors.map(\.text) == ["report: no data for March"])
        #expect(errors.first?.url?.path == "/report")
        #expect(view.pageErrors.isEmpty)
    }

    @Test("the settings page throws exactly one TypeError, at its line")
    func settingsPageThrows() async throws {
        let view = try await open("/settings")
        defer { view.close() }

        #expect(view.pageErrors.map(\.message) == ["TypeError: undefined is not an object (evaluating 'settings.theme')"])
        #expect(view.pageErrors.first?.line == 3)
        #expect(view.pageErrors.first?.kind == .uncaughtException)
    }

    @Test("the gallery's missing photo shows up as a console error naming it")
    func galleryImageFails() async throws {
        let view = try await open("/gallery")
        defer { view.close() }

        let errors = view.consoleMessages.filter { $0.level == .error }
        #expect(errors.map(\.source) == [.network])
        #expect(errors.first?.url?.path == "/photos/missing.jpg")
        #expect(errors.first?.text.hasPrefix("Failed to load resource: the server responded with a status of 404") == true)
    }
}
