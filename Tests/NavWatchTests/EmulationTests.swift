import Foundation
import Synchronization
import LoopbackServer
import NavWatch
import Testing

@Suite("Emulation: the time zone and viewport a view's pages see")
@WebKitActor
struct EmulationTests {
    /// What a page reads of its emulated settings, as one line.
    private static let reading = """
        [Intl.DateTimeFormat().resolvedOptions().timeZone, new Date(Date.UTC(2026, 0, 1, 12)).getHours(),
         new Date(Date.UTC(2026, 0, 1, 12)).getTimezoneOffset(), innerWidth + 'x' + innerHeight].join(' | ')
        """

    /// Loads a page of `server` in a view of `configuration` and returns what it reads.
    private func read(_ configuration: WebViewConfiguration, _ server: LoopbackServer) async throws -> String {
        let view = try WebView(configuration: configuration)
        defer { view.close() }
        let fold = try view.loadFolding(server.url("/"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished)
        return try #require(try await view.evaluateJavaScript(Self.reading).stringValue)
    }

    @Test("views of two time zones and viewports at once, and one of neither after them: each page sees its own")
    func timeZoneAndViewport() async throws {
        let server = try await LoopbackServer.start(route: { _ in .html("<!doctype html><title>t</title>") })
        defer { Task { await server.shutdown() } }
        let berlin = WebViewConfiguration(viewportWidth: 390, viewportHeight: 844, timeZone: "Europe/Berlin")
        let newYork = WebViewConfiguration(timeZone: "America/New_York")
        async let inBerlin = read(berlin, server)
        async let inNewYork = read(newYork, server)
        #expect(try await inBerlin == "Europe/Berlin | 13 | -60 | 390x844")
        #expect(try await inNewYork == "America/New_York | 7 | 300 | 1280x800")
        // The system's time zone (UTC on CI machines, as here; TZ otherwise).
        let system = TimeZone.current
        let offset = system.secondsFromGMT(for: Date(timeIntervalSince1970: 1_767_268_800)) / 60
        let hour = (12 + offset / 60 + 24) % 24
        // (Its name may differ: Foundation's Etc/UTC is UTC to JavaScript.)
        let plain = try await read(WebViewConfiguration(), server).split(separator: " | ", maxSplits: 1)
        #expect(plain.last == "\(hour) | \(-offset) | 1280x800")
        #expect(!["Europe/Berlin", "America/New_York"].contains(plain.first))
    }

    @Test("a named device: its viewport, User-Agent and scale factor reach the page and its requests")
    func device() async throws {
        let seen = Mutex<[String]>([])
        let server = try await LoopbackServer.start(route: { request in
            seen.withLock { $0.append(request.headers.first { $0.0.lowercased() == "user-agent" }?.1 ?? "") }
            return .html("<!doctype html><title>t</title>")
        })
        defer { Task { await server.shutdown() } }
        let iPhone = try #require(Device.named("iphone 13"))
        #expect(iPhone.name == "iPhone 13" && Device.named("Nokia 3310") == nil)
        let view = try WebView(configuration: WebViewConfiguration().emulating(iPhone))
        defer { view.close() }
        let fold = try view.loadFolding(server.url("/"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished)
        let read = try await view.evaluateJavaScript("[innerWidth + 'x' + innerHeight, navigator.userAgent, devicePixelRatio].join(' | ')")
        #expect(read.stringValue == "390x664 | \(iPhone.userAgent) | 3")
        #expect(seen.withLock { $0 } == [iPhone.userAgent])
    }

    @Test("a setting out of its range: the view is refused with a line naming it and its value",
          arguments: [
            (WebViewConfiguration(viewportWidth: 0), "the viewport's width 0 is not between 1 and 16384 pixels"),
            (WebViewConfiguration(viewportHeight: 20_000), "the viewport's height 20000 is not between 1 and 16384 pixels"),
            (WebViewConfiguration(timeZone: "Mars/Olympus"),
             #"the time zone "Mars/Olympus" is unknown (give an IANA name, such as Europe/Berlin)"#),
          ])
    func outOfRange(_ configuration: WebViewConfiguration, _ message: String) {
        #expect(throws: WebViewError.invalidConfiguration(message)) { try WebView(configuration: configuration) }
    }
}
