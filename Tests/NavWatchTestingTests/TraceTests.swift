import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatchTesting
import Testing

/// A page whose button logs, fetches `/api`, shows its answer and throws.
private enum TracedApp {
    static let server = Task {
        try await LoopbackServer.start { request in
            switch request.path {
            case "/app":
                return .html("""
                    <!doctype html><title>Traced</title>
                    <button id="go" onclick="console.log('clicked'); fetch('/api').then(r => r.text()).then(t => {
                      document.querySelector('#out').textContent = t; setTimeout(() => { throw new Error('boom') }, 0) })">Go</button>
                    <p id="out"></p>
                    """)
            case "/api": return .text("done")
            default: return .html("<title>Not found</title>", status: 404)
            }
        }
    }
}

@Suite("Traces: each step with a screenshot after it, the console, errors and requests, in one HTML page")
@WebKitActor
struct TraceTests {
    @Test("a load, a click and an assertion: three steps, each with its screenshot; what the page logged, threw and fetched")
    func steps() async throws {
        let server = try await TracedApp.server.value
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: file) }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        view.tracing.start(title: "the traced app")
        #expect(view.tracing.isRecording)
        try await view.goto(server.url("/app"))
        try await view.locator("#go").click()
        try await expect(view.locator("#out")).toHaveText("done")
        let deadline = ContinuousClock.now + .seconds(10)
        while view.pageErrors.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let trace = try #require(try await view.tracing.stop(writingTo: file))
        #expect(!view.tracing.isRecording)
        #expect(await view.tracing.current() == nil)

        #expect(trace.title == "the traced app")
        #expect(trace.steps.map(\.title) == [
            "goto \(server.url("/app").absoluteString)", "click locator('#go')",
            #"expect(locator('#out')).toHaveText("done")"#,
        ])
        #expect(trace.steps.allSatisfy { $0.error == nil })
        #expect(zip(trace.steps, trace.steps.dropFirst()).allSatisfy { $0.startMilliseconds + $0.durationMilliseconds <= $1.startMilliseconds })
        for step in trace.steps {
            let jpeg = try #require(step.screenshot, "\(step.title) has no screenshot")
            // A JPEG of the 1280x800 viewport, scaled down to Tracing.screenshotWidth.
            #expect(imageKind(jpeg) == "jpeg \(Tracing.screenshotWidth)x500")
        }
        #expect(trace.messages.map { "\($0.level) \($0.text)" } == ["log clicked", "pageerror Error: boom"])
        #expect(trace.requests.map { "\($0.method) \(URL(string: $0.url)?.path ?? "") \($0.status.map(String.init) ?? "-")" }
                    == ["GET /app 200", "GET /api 200"])

        let html = try String(contentsOf: file, encoding: .utf8)
        #expect(html.contains("<title>Trace: the traced app</title>"))
        #expect(html.contains("click locator(&#39;#go&#39;)</span> <span class=\"ok\">ok</span>"))
        #expect(html.components(separatedBy: "src=\"data:image/jpeg;base64,").count == 4)
        #expect(html.contains("<td>pageerror</td><td class=\"text\">Error: boom</td>"))
        #expect(!html.contains("http://") || html.contains("<td class=\"url\">\(server.url("/api").absoluteString)</td>"))
    }

    @Test("a failed load and a failed assertion are failed steps, with why; no screenshots when asked for none")
    func failures() async throws {
        let server = try await TracedApp.server.value
        let refused = try RefusingPort()
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        view.tracing.start(title: "failures", screenshots: false)
        try await view.goto(URL(string: "http://127.0.0.1:\(refused.port)/")!)
        try await view.goto(server.url("/app"))
        await withKnownIssue {
            try await expect(view.locator("#out"), timeout: .milliseconds(300)).toHaveText("never")
        }
        let trace = try #require(await view.tracing.stop())
        #expect(trace.steps.map(\.title).dropFirst() == ["goto \(server.url("/app").absoluteString)",
                                                         #"expect(locator('#out')).toHaveText("never")"#])
        #expect(trace.steps[0].error?.hasPrefix("connection-refused: ") == true, "\(String(describing: trace.steps[0].error))")
        #expect(trace.steps[1].error == nil)
        #expect(trace.steps[2].error?.hasPrefix(#"expect(locator('#out')).toHaveText("never") failed"#) == true)
        #expect(trace.steps.allSatisfy { $0.screenshot == nil })
    }

    @Test("not started: nothing is recorded, and stopping gives nil")
    func notStarted() async throws {
        let server = try await TracedApp.server.value
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        try await view.goto(server.url("/app"))
        #expect(!view.tracing.isRecording)
        #expect(await view.tracing.stop() == nil)
    }
}
