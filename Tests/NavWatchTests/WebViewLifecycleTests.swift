import CNavShim
import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
import Testing
import WebKitThread

@Suite("WebView life cycle and JavaScript")
struct WebViewLifecycleTests {
    @Test("closing mid-load ends the navigation once as cancelled, then nothing follows")
    @WebKitActor func closeMidLoad() async throws {
        try await withHangingLoad { server, recorder, view in
            view.close()
            view.close()
            await recorder.wait(seconds: 0.5) { _ in false }
            #expect(recorder.lines == ["#1 start /hang", "#1 fail-provisional cancelled"])
            #expect(throws: WebViewError.closed) { try view.load(server.url("/page")) }
        }
    }

    @Test("stop() ends the running navigation as cancelled")
    @WebKitActor func stopCancels() async throws {
        try await withHangingLoad { server, recorder, view in
            view.stop()
            await recorder.wait(seconds: 0.5) { _ in false }
            #expect(recorder.lines == ["#1 start /hang", "#1 fail-provisional cancelled"])
        }
    }

    @Test("unsupported schemes are refused before anything loads")
    @WebKitActor func unsupportedScheme() async throws {
        let view = try WebView()
        defer { view.close() }
        #expect(throws: WebViewError.unsupportedURL("ftp://example.org/")) {
            try view.load(URL(string: "ftp://example.org/")!)
        }
    }

    @Test("loadHTML with a base URL commits and finishes")
    @WebKitActor func loadHTML() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.loadHTML("<title>Inline</title><p>hi</p>", baseURL: URL(string: "http://127.0.0.1:9999/base/")!)
        await recorder.waitForEnd(of: 1)
        #expect(recorder.lines.first == "#1 start http://127.0.0.1:9999/base/")
        #expect(recorder.lines.last == "#1 finish")
        #expect(try await view.evaluateJavaScript("document.title") == .string("Inline"))
    }

    @Test("JavaScript results come back typed")
    @WebKitActor func evaluateValues() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.loadHTML("<title>JS</title>", baseURL: nil)
        await recorder.waitForEnd(of: 1)
        #expect(try await view.evaluateJavaScript("1 + 2") == .number(3))
        #expect(try await view.evaluateJavaScript("'a' + 'b'") == .string("ab"))
        #expect(try await view.evaluateJavaScript("true") == .bool(true))
        #expect(try await view.evaluateJavaScript("null") == .null)
        #expect(try await view.evaluateJavaScript("undefined") == .undefined)
        #expect(try await view.evaluateJavaScript("({a: [1, 'x']})") == .object(["a": .array([.number(1), .string("x")])]))
        #expect(try await view.evaluateJavaScript("document.title") == .string("JS"))
    }

    struct Page: Decodable, Equatable {
        let title: String
        let links: Int
    }

    @Test("JavaScript errors are typed: exceptions, unserialisable results, decoding paths")
    @WebKitActor func evaluateErrors() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.loadHTML("<title>JS</title><a href=x>x</a>", baseURL: URL(string: "http://127.0.0.1:9999/")!)
        await recorder.waitForEnd(of: 1)
        let page = try await view.evaluateJavaScript("({title: document.title, links: document.links.length})", as: Page.self)
        #expect(page == Page(title: "JS", links: 1))
        await #expect(throws: JavaScriptError.exception(message: "ReferenceError: Can't find variable: nope", line: 1)) {
            try await view.evaluateJavaScript("nope.x")
        }
        do {
            _ = try await view.evaluateJavaScript("document.body")
            Issue.record("a DOM node must not serialise")
        } catch {
            guard case .unserializableResult = error else { throw error }
        }
        do {
            _ = try await view.evaluateJavaScript("({title: 'x', links: 'many'})", as: Page.self)
            Issue.record("a string must not decode as Int")
        } catch {
            guard case .decodingFailed(let path, _) = error else { throw error }
            #expect(path == ".links")
        }
    }

    @Test("cancelling the awaiting task cancels a running evaluation")
    @WebKitActor func evaluateCancel() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        defer { view.close() }
        try view.loadHTML("<title>JS</title>", baseURL: nil)
        await recorder.waitForEnd(of: 1)
        let task = Task { @WebKitActor in
            try await view.evaluateJavaScript("(() => { const end = Date.now() + 1500; while (Date.now() < end) {} return 1 })()")
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: JavaScriptError.cancelled) { try await task.value }
    }

    @Test("closing the view fails a running evaluation with viewClosed")
    @WebKitActor func evaluateAfterClose() async throws {
        let recorder = Recorder()
        let view = try recorder.makeView()
        try view.loadHTML("<title>JS</title>", baseURL: nil)
        await recorder.waitForEnd(of: 1)
        let task = Task { @WebKitActor in
            try await view.evaluateJavaScript("(() => { const end = Date.now() + 1500; while (Date.now() < end) {} return 1 })()")
        }
        try await Task.sleep(for: .milliseconds(100))
        view.close()
        await #expect(throws: JavaScriptError.viewClosed) { try await task.value }
    }
}
