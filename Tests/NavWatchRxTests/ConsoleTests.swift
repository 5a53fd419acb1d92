import Foundation
import LoopbackServer
import NavWatchTestSupport
@testable import NavWatchRx
import Testing

/// Pages whose console and errors are known line by line (line 1 is `<html>`).
private let server = Task {
    try await LoopbackServer.start { request in
        switch request.path {
        case "/console":
            return .html("""
                <html><head><title>Console</title><script>
                console.log("hello", 42, {a: 1});
                console.warn("careful");
                console.info("for your information");
                console.debug("details");
                </script></head><body><script src="/console.js"></script><script>
                console.error("an error");
                function fail() { throw new TypeError("boom"); }
                fail();
                </script></body></html>
                """)
        case "/console.js":
            return .text("\nconsole.log('from a script file');\n", contentType: "text/javascript")
        case "/hostile":
            // The page swallows errors in onerror, replaces console.log and
            // console itself, dispatches a forged error, and rejects a promise.
            return .html("""
                <html><body><script>
                window.onerror = () => true;
                const original = console.log;
                console.log = (...args) => original("wrapped:", ...args);
                console.log("through the page's wrapper");
                window.dispatchEvent(new ErrorEvent("error", { message: "forged", filename: "http://elsewhere.example/x.js", lineno: 7 }));
                window.console = { log() {}, error() {} };
                console.error("into the page's own console");
                Promise.reject(new RangeError("nobody caught me"));
                null.property;
                </script></body></html>
                """)
        case "/leaving":
            return .html("""
                <html><body><script>
                addEventListener("pagehide", () => console.log("leaving"));
                </script></body></html>
                """)
        case "/quiet":
            return .html("<html><body><script>console.log('quiet');</script></body></html>")
        default:
            return .html("<title>Not found</title>", status: 404)
        }
    }
}

@Suite("Console messages and page errors")
@WebKitActor
struct ConsoleTests {
    /// What a test compares: the events of one load but resources and properties.
    private enum Seen: Equatable {
        case started, committed, finished
        case console(ConsoleMessage.Level, ConsoleMessage.Source, String, String?, Int?)
        case pageError(PageError.Kind, String, String?, Int?, Int?)
    }

    private func seen(_ event: WebViewEvent) -> Seen? {
        switch event {
        case .navigation(.didStartProvisionalNavigation): return .started
        case .navigation(.didCommit): return .committed
        case .navigation(.didFinish): return .finished
        case .consoleMessage(let m): return .console(m.level, m.source, m.text, m.url?.path, m.line)
        case .pageError(let e): return .pageError(e.kind, e.message, e.url?.path, e.line, e.column)
        default: return nil
        }
    }

    /// Loads `path` and returns what was seen up to the finish, and then
    /// until `count` items were seen.
    private func load(_ path: String, in view: WebView, atLeast count: Int = 0) async throws -> [Seen] {
        let server = try await server.value
        let log = EventLog(view.rx.events)
        try view.load(server.url(path))
        var seen: [Seen] = []
        while let event = try await log.next("the finish of \(path) and \(count) events") {
            if let item = self.seen(event) { seen.append(item) }
            if seen.contains(.finished), seen.count >= count { break }
        }
        return seen
    }

    @Test("every console call and the uncaught error arrive with level, text, source and line, between commit and finish")
    func exactMessages() async throws {
        let view = try WebView()
        defer { view.close() }
        let seen = try await load("/console", in: view)
        #expect(seen == [
            .started, .committed,
            .console(.log, .consoleAPI, #"hello 42 {"a":1}"#, "/console", 2),
            .console(.warning, .consoleAPI, "careful", "/console", 3),
            .console(.info, .consoleAPI, "for your information", "/console", 4),
            .console(.debug, .consoleAPI, "details", "/console", 5),
            // JSC leaves a script's top level out of this stack: the script, no line.
            .console(.log, .consoleAPI, "from a script file", "/console.js", nil),
            .console(.error, .consoleAPI, "an error", "/console", 7),
            .pageError(.uncaughtException, "TypeError: boom", "/console", 8, 46),
            .finished,
        ])
        #expect(view.consoleMessages.map(\.text) == [#"hello 42 {"a":1}"#, "careful", "for your information", "details",
                                                     "from a script file", "an error"])
        #expect(view.pageErrors.map(\.message) == ["TypeError: boom"])
        #expect(view.pageErrors.first?.stack?.hasPrefix("fail@") == true)
    }

    @Test("a page that swallows errors, wraps console.log, replaces console and forges an error event still reports what happened")
    func hostilePage() async throws {
        let view = try WebView()
        defer { view.close() }
        let seen = try await load("/hostile", in: view, atLeast: 6)
        // WebKit reports an unhandled rejection a task later: before or after the finish.
        #expect(seen.filter { $0 != .finished } == [
            .started, .committed,
            .console(.log, .consoleAPI, "wrapped: through the page's wrapper", "/hostile", 4),
            .pageError(.uncaughtException, "TypeError: null is not an object (evaluating 'null.property')", "/hostile", 10, 5),
            .pageError(.unhandledRejection, "RangeError: nobody caught me", "/hostile", 9, 30),
        ])
        #expect(seen.filter { $0 == .finished }.count == 1)
    }

    @Test("a page's messages and errors never count for the next page, even those it logs while it is left")
    func noLeakIntoTheNextPage() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let log = EventLog(view.rx.events)
        guard case .finished(let first, _, _) = try await view.rx.pageLoad(server.url("/leaving")),
              case .finished(let second, _, _) = try await view.rx.pageLoad(server.url("/quiet")) else {
            Issue.record("a page did not finish"); return
        }
        var messages: [(String, UInt64?)] = []
        var states = [first.id: PageLoadState(navigation: first), second.id: PageLoadState(navigation: second)]
        while let event = try await log.next("the second page's finish") {
            for id in states.keys { states[id]!.apply(event) }
            if case .consoleMessage(let message) = event { messages.append((message.text, message.navigation?.id)) }
            if case .navigation(.didFinish(let navigation)) = event, navigation.id == second.id { break }
        }
        #expect(messages.map(\.0) == ["leaving", "quiet"])
        #expect(messages.map(\.1) == [first.id, second.id])
        #expect(states[first.id]!.consoleMessages.map(\.text) == ["leaving"])
        #expect(states[second.id]!.consoleMessages.map(\.text) == ["quiet"])
        #expect(view.consoleMessages.map(\.text) == ["quiet"])
    }
}
