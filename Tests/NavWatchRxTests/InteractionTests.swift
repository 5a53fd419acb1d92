import Foundation
import LoopbackServer
import NavWatchTestSupport
@testable import NavWatchRx
import Testing

/// A login form that redirects, pages that change later, a covered button.
private let server = Task {
    try await LoopbackServer.start { request in
        switch request.path {
        case "/form":
            return .html("""
                <html><head><title>Log in</title></head><body>
                <form id="login" action="/login"><input id="user" name="user"><input id="password" name="password" type="password">
                <button id="go">Log in</button></form>
                <button id="popup" onclick="window.open('/popup')">Help</button>
                <a id="down" href="#section">Down</a><p id="section">Section</p>
                <script>
                window.seen = [];
                for (const type of ['click', 'keydown', 'input', 'change'])
                  document.addEventListener(type, event => seen.push(type + (event.isTrusted ? '' : ' (untrusted)') + ' ' + event.target.id), true);
                </script></body></html>
                """)
        case "/login":
            let user = request.uri.components(separatedBy: "user=").dropFirst().first?.components(separatedBy: "&").first ?? ""
            return .redirect(to: "/welcome?user=\(user)")
        case "/welcome":
            return .html("<html><head><title>Welcome</title></head><body>Hello</body></html>")
        case "/covered":
            return .html("""
                <html><body><button id="under" style="position:absolute;left:10px;top:10px;width:100px;height:40px">Under</button>
                <div id="overlay" style="position:absolute;left:0;top:0;width:300px;height:300px"></div></body></html>
                """)
        case "/later":
            return .html("""
                <html><body><script>
                setTimeout(() => { window.ready = true; document.body.append(Object.assign(document.createElement('p'), { id: 'done' })); }, 300);
                </script></body></html>
                """)
        default:
            return .html("<title>Not found</title>", status: 404)
        }
    }
}

@Suite("Clicking, typing, submitting and waiting")
@WebKitActor
struct InteractionTests {
    private func loaded(_ path: String) async throws -> WebView {
        let server = try await server.value
        let view = try WebView()
        guard case .finished = try await view.rx.pageLoad(server.url(path)) else {
            throw InteractionError.noMatch(selector: "the page \(path) did not load")
        }
        return view
    }

    private func seen(in view: WebView) async throws -> [String] {
        try await view.evaluateJavaScript("window.seen", as: [String].self)
    }

    @Test("fill, then a real click on the submit button: the form's navigation and its redirect are awaited")
    func fillAndClick() async throws {
        let view = try await loaded("/form")
        defer { view.close() }
        try await view.fill("#user", "ada")
        try await view.fill("#password", "secret")
        // Typed text: trusted input events, and a change when the focus moves on.
        #expect(try await seen(in: view) == ["input user", "change user", "input password"])
        let outcome = try await view.click("#go")
        guard case .finished(let navigation, let response, let title)? = outcome else {
            Issue.record("the click did not finish a navigation: \(String(describing: outcome))"); return
        }
        #expect(navigation.origin == .page)
        #expect(response?.url.path == "/welcome")
        #expect(response?.url.query == "user=ada")
        #expect(title == "Welcome")
        #expect(view.title == "Welcome")
    }

    @Test("keys are real input: typing a character and Enter in the field submits the form")
    func pressEnter() async throws {
        let view = try await loaded("/form")
        defer { view.close() }
        try await view.click("#user")
        #expect(try await view.press("b") == nil)
        #expect(try await seen(in: view) == ["click user", "keydown user", "input user"])
        let outcome = try await view.press("Enter")
        guard case .finished(_, let response, "Welcome")? = outcome else {
            Issue.record("Enter did not submit: \(String(describing: outcome))"); return
        }
        #expect(response?.url.query == "user=b")
    }

    @Test("submit() runs the form's submission and awaits its navigation")
    func submitForm() async throws {
        let view = try await loaded("/form")
        defer { view.close() }
        try await view.fill("#user", "grace")
        let outcome = try await view.submit("#user")
        guard case .finished(_, let response, "Welcome")? = outcome else {
            Issue.record("the submission did not finish: \(String(describing: outcome))"); return
        }
        #expect(response?.url.query == "user=grace")
    }

    @Test("a click on a fragment link is a same-document navigation: nothing to await")
    func fragmentLink() async throws {
        let view = try await loaded("/form")
        defer { view.close() }
        #expect(try await view.click("#down") == nil)
        #expect(view.url?.fragment == "section")
    }

    @Test("a popup opened by a clicked button counts as a user gesture")
    func popupIsUserGesture() async throws {
        let view = try await loaded("/form")
        defer { view.close() }
        let requests = EventLog(view.rx.newWindowRequest)
        #expect(try await view.click("#popup") == nil)
        let request = try await requests.next("the popup's new-window request")
        #expect(request?.url?.path == "/popup")
        #expect(request?.isUserGesture == true)
    }

    @Test("errors name the selector: nothing matches, invalid, covered, not a field, unknown key")
    func errors() async throws {
        let view = try await loaded("/covered")
        defer { view.close() }
        await #expect(throws: InteractionError.noMatch(selector: "#missing")) { try await view.click("#missing") }
        await #expect(throws: InteractionError.notInteractable(selector: "#under",
                                                              reason: "another element is on top of it (div#overlay)")) {
            try await view.click("#under")
        }
        await #expect(throws: InteractionError.notInteractable(selector: "#overlay", reason: "it is not a text field")) {
            try await view.fill("#overlay", "x")
        }
        await #expect(throws: InteractionError.notInteractable(selector: "#under", reason: "it is not a form or in one")) {
            try await view.submit("#under")
        }
        await #expect(throws: InteractionError.unknownKey("Hyper")) { try await view.press("Hyper") }
        do {
            try await view.click("p[")
            Issue.record("an invalid selector was accepted")
        } catch {
            guard case .invalidSelector(selector: "p[", _) = error else { Issue.record("wrong error: \(error)"); return }
        }
    }

    @Test("waitFor returns when the page adds the element or makes the predicate true, and times out naming what it awaited")
    func waiting() async throws {
        let view = try await loaded("/later")
        defer { view.close() }
        try await view.waitFor(selector: "#done", timeout: .seconds(10))
        try await view.waitFor(script: "window.ready === true", timeout: .seconds(10))
        await #expect(throws: InteractionError.timedOut(waitingFor: "an element matching #never", after: .milliseconds(300))) {
            try await view.waitFor(selector: "#never", timeout: .milliseconds(300))
        }
        await #expect(throws: InteractionError.timedOut(waitingFor: "window.never === 1 to be true", after: .milliseconds(300))) {
            try await view.waitFor(script: "window.never === 1", timeout: .milliseconds(300))
        }
        await #expect(throws: InteractionError.script(.exception(message: "ReferenceError: Can't find variable: nothing", line: nil))) {
            try await view.waitFor(script: "nothing.here", timeout: .seconds(1))
        }
    }

    @Test("cancelling a waitFor ends it at once with a cancelled error, not at its timeout")
    func cancelledWait() async throws {
        let view = try await loaded("/later")
        defer { view.close() }
        let waiting = Task { @WebKitActor in try await view.waitFor(selector: "#never", timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        waiting.cancel()
        do {
            try await waiting.value
            Issue.record("the cancelled wait returned")
        } catch {
            #expect(error as? InteractionError == .script(.cancelled))
        }
        #expect(ContinuousClock.now - cancelled < .seconds(5))
    }
}
