import ArgumentParser
import Foundation
import LoopbackServer
import NavWatch
import NavWatchTesting
import WebKitThread

/// What a route costs a page load: the same page, with a style sheet, four
/// scripts and 24 images, loaded from its server in a test view
/// (`.testing`), and in a test view with one route that fulfils every
/// request from memory (the same bodies), then with one that continues
/// every request to the server. Loads alternate; each is timed from `goto`
/// to its `load` event, with no cache (every response says `no-store`, the
/// memory cache is off), so every request goes to the server or the route.
///
/// Prints `{"loads", "requests_per_load", "server_ms", "fulfilled_ms",
/// "continued_ms"}`, medians.
struct RouteOverhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "routes")

    @Option(help: "Loads of each kind to time (after 5 of each not timed).")
    var loads = 60

    func run() async throws {
        let files = Self.files()
        let server = try await LoopbackServer.start { request in
            guard let file = files[request.path] else { return .html("<title>Not found</title>", status: 404) }
            return .respond(status: 200, headers: [("Content-Type", file.type), ("Cache-Control", "no-store")], body: file.body)
        }
        let url = server.url("/")
        let times = try await Task { @WebKitActor in
            var configuration = WebViewConfiguration.testing
            configuration.memoryCache = false
            let plain = try WebView(configuration: configuration)
            let fulfilled = try WebView(configuration: configuration)
            let continued = try WebView(configuration: configuration)
            defer { for view in [plain, fulfilled, continued] { view.close() } }
            try await fulfilled.route("**") { request in
                guard let file = files[request.url.path] else { return .fulfill(status: 404) }
                return .fulfill(headers: ["Content-Type": file.type, "Cache-Control": "no-store"], body: Data(file.body))
            }
            try await continued.route("**") { _ in .continue() }
            var times: [[Double]] = [[], [], []]
            for round in 0..<(loads + 5) {
                for (index, view) in [plain, fulfilled, continued].enumerated() {
                    let start = ContinuousClock.now
                    let outcome = try await view.goto(url)
                    guard case .finished = outcome else { throw ValidationError("a load failed: \(outcome)") }
                    if round >= 5 { times[index].append((ContinuousClock.now - start).seconds * 1000) }
                }
            }
            return times
        }.value
        await server.shutdown()
        func median(_ values: [Double]) -> String { String(format: "%.2f", values.sorted()[values.count / 2]) }
        print(#"{"loads": \#(loads), "requests_per_load": \#(files.count), "server_ms": \#(median(times[0])), "#
              + #""fulfilled_ms": \#(median(times[1])), "continued_ms": \#(median(times[2]))}"#)
    }

    /// The page and what it uses, by path: its type and bytes.
    static func files() -> [String: (type: String, body: [UInt8])] {
        let png = [UInt8](Data(base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)
        var files: [String: (type: String, body: [UInt8])] = [:]
        var page = "<!doctype html><html><head><title>Shop</title><link rel=stylesheet href=/style.css></head><body>\n"
        files["/style.css"] = ("text/css", Array(String(repeating: "p { margin: 0 0 1em; color: #333 }\n", count: 100).utf8))
        for index in 0..<4 {
            page += "<script src=/script-\(index).js></script>\n"
            files["/script-\(index).js"] = ("text/javascript", Array("window.loaded\(index) = \(index);\n".utf8))
        }
        for index in 0..<24 {
            page += "<img src=/image-\(index).png width=16 height=16>\n"
            files["/image-\(index).png"] = ("image/png", png)
        }
        page += String(repeating: "<p>Some text of the shop's page, as a page has.</p>\n", count: 50) + "</body></html>\n"
        files["/"] = ("text/html", Array(page.utf8))
        return files
    }
}
