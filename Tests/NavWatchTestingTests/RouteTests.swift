import Foundation
import LoopbackServer
import NavWatchGuard
import NavWatchTestSupport
import NavWatchTesting
import Synchronization
import Testing

/// A shop page that runs a script, shows an image and fetches its items,
/// each result in a paragraph; every request's path and `x-test` header logged.
private final class ShopApp: Sendable {
    let server: LoopbackServer

    static let page = """
        <!doctype html><title>Shop</title>
        <p id="script">no script</p><p id="image">image pending</p><p id="api">api pending</p>
        <img src="/logo.png" onload="document.querySelector('#image').textContent = 'image ' + this.naturalWidth"
             onerror="document.querySelector('#image').textContent = 'image failed'">
        <script>
          fetch('/api/items').then(r => r.text().then(t => document.querySelector('#api').textContent = r.status + ' ' + t))
            .catch(() => document.querySelector('#api').textContent = 'api failed')
        </script>
        <script src="/app.js"></script>
        """
    /// A PNG of one pixel.
    static let png = [UInt8](Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    static func start(host: String = "127.0.0.1", tls: LoopbackServer.TLSIdentity? = nil) async throws -> ShopApp {
        let log = Log()
        let server = try await LoopbackServer.start(host: host, tls: tls) { request in
            if let value = request.headers.first(where: { $0.0.lowercased() == "x-test" })?.1 {
                log.append("\(request.path) \(value)")
            }
            switch request.path {
            case "/page": return .html(page)
            case "/app.js": return .text("document.querySelector('#script').textContent = 'script from the server'",
                                         contentType: "text/javascript")
            case "/other.js": return .text("document.querySelector('#script').textContent = 'other script from the server'",
                                           contentType: "text/javascript")
            case "/logo.png": return .respond(status: 200, headers: [("Content-Type", "image/png")], body: png)
            case "/api/items": return .text(#"{"items":["server"]}"#, contentType: "application/json")
            default: return .html("<title>Not found</title>", status: 404)
            }
        }
        return ShopApp(server: server, log: log)
    }

    private let log: Log
    private init(server: LoopbackServer, log: Log) {
        self.server = server
        self.log = log
    }

    /// `path x-test` of each request that had the header, in order.
    var tested: [String] { log.entries }

    final class Log: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var entries: [String] { lines.withLock { $0 } }
    }
}

@Suite("Routes: a view's requests fulfilled, aborted or continued, over http and https")
@WebKitActor
struct RouteTests {
    /// The three paragraphs of the shop page once none is pending any more.
    private func results(_ view: WebView) async throws -> [String] {
        try await expect(view.locator("#api")).not.toHaveText("api pending")
        try await expect(view.locator("#image")).not.toHaveText("image pending")
        var texts: [String] = []
        for selector in ["#script", "#image", "#api"] { texts.append(try await view.locator(selector).textContent() ?? "") }
        return texts
    }

    @Test("over http: a script and a fetch fulfilled, an image aborted, then the document itself; the server sees only the page")
    func fulfilAndAbortOverHTTP() async throws {
        let app = try await ShopApp.start()
        defer { Task { await app.server.shutdown() } }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        try await view.route("**/app.js") { _ in
            .fulfill(contentType: "text/javascript", body: "document.querySelector('#script').textContent = 'script from the route'")
        }
        try await view.route("**/api/items") { _ in
            .fulfill(status: 500, contentType: "application/json", body: #"{"error":"down"}"#)
        }
        let aborted = ShopApp.Log()
        try await view.route("**/logo.png") { request in
            aborted.append(request.url.path)
            return .abort()
        }
        try await view.goto(app.server.url("/page"))
        #expect(try await results(view) == ["script from the route", "image failed", #"500 {"error":"down"}"#])
        // Asked once: WebKit does not send an aborted request again.
        #expect(aborted.entries == ["/logo.png"])
        #expect(app.server.receivedRequests == ["/page"])

        try await view.route("**/elsewhere") { request in
            .fulfill(contentType: "text/html", body: "<title>Routed</title><p id='from'>\(request.method) \(request.url.path)</p>")
        }
        try await view.goto(app.server.url("/elsewhere"))
        try await expect(view).toHaveTitle("Routed")
        try await expect(view.locator("#from")).toHaveText("GET /elsewhere")
        #expect(app.server.receivedRequests == ["/page"])

        // A cross-origin POST with a header of its own: its preflight is answered for the route, which sees the POST alone.
        let seen = ShopApp.Log()
        try await view.route("http://api.invalid/**") { request in
            seen.append("\(request.method) \(request.url.path) \(request.headers["x-token"] ?? "-") \(String(decoding: request.postData ?? Data(), as: UTF8.self))")
            return .fulfill(status: 201, headers: ["Access-Control-Allow-Origin": "*"], body: Data("saved".utf8))
        }
        _ = try await view.evaluateJavaScript("""
            fetch('http://api.invalid/items', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Token': 'abc'}, body: '{"n":1}'})
              .then(r => r.text().then(t => document.querySelector('#from').textContent = r.status + ' ' + t),
                    e => document.querySelector('#from').textContent = 'failed ' + e); 0
            """)
        try await expect(view.locator("#from")).toHaveText("201 saved")
        #expect(seen.entries == [#"POST /items abc {"n":1}"#])
    }

    @Test("over http: a fetch continued with a header, a script continued to another URL, an image not routed")
    func continueOverHTTP() async throws {
        let app = try await ShopApp.start()
        defer { Task { await app.server.shutdown() } }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        let documents = ShopApp.Log()
        try await view.route("**/page") { request in
            documents.append("\(request.method) \(request.url.path) \(request.headers["accept"]?.hasPrefix("text/html") == true)")
            return .continue()
        }
        try await view.route("**/api/*") { _ in .continue(RouteOverrides(headers: ["X-Test": "on"])) }
        let other = app.server.url("/other.js")
        try await view.route("**/app.js") { _ in .continue(RouteOverrides(url: other)) }
        try await view.goto(app.server.url("/page"))
        #expect(try await results(view) == ["other script from the server", "image 1", #"200 {"items":["server"]}"#])
        #expect(app.server.receivedRequests.sorted() == ["/api/items", "/logo.png", "/other.js", "/page"])
        #expect(app.tested == ["/api/items on"])
        #expect(documents.entries == ["GET /page true"])
    }

    @Test("over https, with certificates checked: a host that does not exist answered entirely by a route")
    func fulfilOverHTTPS() async throws {
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        try await view.route("https://shop.invalid/**") { request in
            switch request.url.path {
            case "/api": .fulfill(contentType: "application/json", body: #"{"secure":true}"#)
            default: .fulfill(contentType: "text/html", body: """
                <title>Secure shop</title><p id="api">pending</p>
                <script>fetch('/api').then(r => r.text()).then(t => document.querySelector('#api').textContent = location.protocol + ' ' + t)</script>
                """)
            }
        }
        let outcome = try await view.goto(URL(string: "https://shop.invalid/")!)
        guard case .finished(_, let response, let title) = outcome else { Issue.record("the page failed: \(outcome)"); return }
        #expect(title == "Secure shop" && response?.statusCode == 200)
        try await expect(view.locator("#api")).toHaveText(#"https: {"secure":true}"#)

        // A document aborted: the load fails as on a broken network.
        try await view.route("https://shop.invalid/gone") { _ in .abort() }
        let failed = try await view.goto(URL(string: "https://shop.invalid/gone")!)
        guard case .failed(_, let error, let failedResponse) = failed else { Issue.record("the load did not fail: \(failed)"); return }
        #expect(failedResponse == nil)
        #expect(error.kind == .other)
    }

    @Test("over https: a fetch continued to a loopback TLS server, its image fulfilled, its script aborted")
    func continueOverHTTPS() async throws {
        let app = try await ShopApp.start(tls: .loopbackTest)
        defer { Task { await app.server.shutdown() } }
        var configuration = WebViewConfiguration.testing
        configuration.tlsErrors = .ignore  // the loopback server's certificate is its own
        let view = try WebView(configuration: configuration)
        defer { view.close() }
        try await view.route("**/api/items") { _ in .continue(RouteOverrides(headers: ["x-test": "tls"])) }
        try await view.route("**/logo.png") { _ in
            .fulfill(headers: ["Content-Type": "image/png"], body: Data(ShopApp.png))
        }
        try await view.route("**/*.js") { _ in .abort(.connectionRefused) }
        try await view.goto(app.server.url("/page"))
        #expect(try await results(view) == ["no script", "image 1", #"200 {"items":["server"]}"#])
        #expect(app.server.receivedRequests.sorted() == ["/api/items", "/page"])
        #expect(app.tested == ["/api/items tls"])
    }

    @Test("what a route sends on still goes through the guard, which refuses a private address; a fulfilled one reaches nothing")
    func guardStillRefuses() async throws {
        let app = try await ShopApp.start()
        let secret = try await ShopApp.start(host: "127.0.0.2")
        let privateAddressGuard = try await PrivateAddressGuard.start(allowedHosts: ["127.0.0.1"])
        defer { Task { await app.server.shutdown(); await secret.server.shutdown(); await privateAddressGuard.shutdown() } }
        var configuration = WebViewConfiguration.testing
        configuration.networkProxy = privateAddressGuard.proxyURL
        let view = try WebView(configuration: configuration)
        defer { view.close() }
        let stolen = secret.server.url("/api/items")
        try await view.route("**/api/items") { _ in .continue(RouteOverrides(url: stolen)) }
        try await view.route("http://10.9.9.9/**") { _ in
            .fulfill(headers: ["Access-Control-Allow-Origin": "*"], body: Data("pong".utf8))
        }
        try await view.goto(app.server.url("/page"))
        // The guard refuses the tunnel to 127.0.0.2: the request fails as it would on a broken network.
        #expect(try await results(view)[2] == "api failed")
        #expect(secret.server.receivedRequests == [])
        #expect(privateAddressGuard.blockedRequests.map { "\($0.host):\($0.port)" } == ["127.0.0.2:\(secret.server.port)"])
        _ = try await view.evaluateJavaScript(
            "fetch('http://10.9.9.9/ping').then(r => r.text()).then(t => document.querySelector('#api').textContent = 'ping ' + t); 0")
        try await expect(view.locator("#api")).toHaveText("ping pong")
        #expect(privateAddressGuard.blockedRequests.count == 1)
    }

    @Test("a route removed lets requests through again; a trace marks what routes answered; closing the view ends its router")
    func unrouteAndTrace() async throws {
        let app = try await ShopApp.start()
        defer { Task { await app.server.shutdown() } }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        view.tracing.start(title: "routes", screenshots: false)
        try await view.route("**/api/items") { _ in .fulfill(body: Data("routed".utf8)) }
        try await view.goto(app.server.url("/page"))
        #expect(try await results(view)[2] == "200 routed")
        view.unroute("**/api/items")
        try await view.reload()
        #expect(try await results(view)[2] == #"200 {"items":["server"]}"#)
        let trace = try #require(await view.tracing.stop())
        let items = trace.requests.filter { $0.url.hasSuffix("/api/items") }.map { $0.routed == true }
        #expect(items == [true, false])
        #expect(trace.requests.filter { $0.url.hasSuffix("/page") }.allSatisfy { $0.routed == nil })
        #expect(trace.html().contains("\(app.server.url("/api/items").absoluteString) (routed)"))

        // Closing the view lets go of its router and the proxy it listens with.
        weak let router = view.interception
        #expect(router != nil)
        view.close()
        #expect(view.interception == nil)
        let deadline = ContinuousClock.now + .seconds(5)
        while router != nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(router == nil)
    }

    @Test("a popup's requests go through its opener's routes; routes cannot be set on the popup itself")
    func popups() async throws {
        let app = try await ShopApp.start()
        defer { Task { await app.server.shutdown() } }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        try await view.route("**/help") { _ in
            .fulfill(contentType: "text/html", body: "<title>Help from the route</title><p>Ask us.</p>")
        }
        try await view.route("**/start") { _ in
            .fulfill(contentType: "text/html", body: "<title>Start</title><a id='help' href='/help' target='_blank'>Help</a>")
        }
        try await view.goto(app.server.url("/start"))
        let popup = try await view.waitForPopup { try await view.locator("#help").click() }
        try await expect(popup).toHaveTitle("Help from the route")
        #expect(app.server.receivedRequests == [])
        await #expect(throws: RouteError.cannotRoute(
            "routes need a view with storage of its own (WebViewConfiguration.Storage.isolated, as .testing has); set them on the view that opened a popup")) {
            try await popup.route("**") { _ in .continue() }
        }
    }

    @Test("bad input: a glob that does not parse, a view that shares its storage, a closed one, a handler that throws, a status that is none")
    func badInput() async throws {
        #expect(throws: RouteError.invalidPattern("**/{a,b", "a { without its }")) { try RoutePattern(glob: "**/{a,b") }
        #expect(RouteError.invalidPattern("**/{a,b", "a { without its }").description
                    == #"the route pattern "**/{a,b" is not valid: a { without its }"#)
        #expect(throws: RouteError.invalidPattern("a}", "a } without its {")) { try RoutePattern(glob: "a}") }
        #expect(throws: RouteError.invalidPattern("(", "it is not a regular expression")) { try RoutePattern(regularExpression: "(") }

        let shared = try WebView(configuration: WebViewConfiguration())
        await #expect(throws: RouteError.cannotRoute(
            "routes need a view with storage of its own (WebViewConfiguration.Storage.isolated, as .testing has); set them on the view that opened a popup")) {
            try await shared.route("**") { _ in .continue() }
        }
        shared.close()
        await #expect(throws: RouteError.cannotRoute("the web view is closed")) { try await shared.route("**") { _ in .continue() } }

        let app = try await ShopApp.start()
        defer { Task { await app.server.shutdown() } }
        let view = try WebView(configuration: .testing)
        defer { view.close() }
        struct OutOfStock: Error {}
        try await withKnownIssue {
            try await view.route("**/api/items") { _ in throw OutOfStock() }
            try await view.goto(app.server.url("/page"))
            #expect(try await results(view)[2] == "api failed")
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["route **/api/items threw for GET \(app.server.url("/api/items").absoluteString): OutOfStock()"]
        }
        view.unrouteAll()
        try await withKnownIssue {
            try await view.route("**/api/items") { _ in .fulfill(status: 1000, contentType: "application/json", body: "{}") }
            try await view.goto(app.server.url("/page"))
            #expect(try await results(view)[2] == "api failed")
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["route **/api/items fulfilled GET \(app.server.url("/api/items").absoluteString) "
                                                + "with status 1000, which is not a final HTTP status (200 to 599)"]
        }
    }
}
