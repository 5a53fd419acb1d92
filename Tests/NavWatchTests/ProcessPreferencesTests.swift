import Foundation
import Synchronization
import LoopbackServer
import NavWatch
import NavWatchTestSupport
import Testing

/// The locale, colour scheme and reduced motion are one for the whole process
/// in WebKitGTK: these tests are the only ones here that set them, one at a time.
@Suite("Emulation: the locale, colour scheme, reduced motion and scale factor a view's pages see", .serialized)
@WebKitActor
struct ProcessPreferencesTests {
    /// What a page reads of its preferences, as one line.
    private static let reading = """
        [navigator.language, navigator.languages.join(','), Intl.DateTimeFormat().resolvedOptions().locale,
         (1234.5).toLocaleString(), matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
         matchMedia('(prefers-reduced-motion: reduce)').matches ? 'reduce' : 'no-preference',
         devicePixelRatio, innerWidth + 'x' + innerHeight].join(' | ')
        """

    /// A view of `configuration` showing a page of `server`.
    private func open(_ configuration: WebViewConfiguration, _ server: LoopbackServer) async throws -> WebView {
        let view = try WebView(configuration: configuration)
        let fold = try view.loadFolding(server.url("/"), timeout: .seconds(20))
        await fold.wait(until: { $0.isEnded })
        try #require(fold.state.stage == .finished)
        return view
    }

    private func read(_ view: WebView) async throws -> String {
        try #require(try await view.evaluateJavaScript(Self.reading).stringValue)
    }

    /// What `view`'s page, loaded before a change of the process's settings,
    /// reads once it ends in `suffix` (WebKit tells running pages of a
    /// change by message), or after 5 seconds.
    private func read(_ view: WebView, once suffix: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(5)
        var line = try await read(view)
        while !line.hasSuffix(suffix) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            line = try await read(view)
        }
        return line
    }

    @Test("a locale reaches navigator.language, Intl and Accept-Language; a second view of another is refused; closed, WebKit's own comes back")
    func locale() async throws {
        let seen = Mutex<[String]>([])
        let server = try await LoopbackServer.start(route: { request in
            seen.withLock { $0.append(request.headers.first { $0.0.lowercased() == "accept-language" }?.1 ?? "-") }
            return .html("<!doctype html><title>t</title>")
        })
        defer { Task { await server.shutdown() } }
        let german = try await open(WebViewConfiguration(locale: "de-DE"), server)
        #expect(try await read(german) == "de-DE | de-DE | de-DE | 1.234,5 | light | no-preference | 1 | 1280x800")
        #expect(seen.withLock { $0 } == ["de-DE"])
        #expect(throws: WebViewError.invalidConfiguration(
            #"the locale "fr-FR" cannot be used while an open view uses "de-DE": WebKitGTK keeps one locale for the whole process"#)) {
            try WebView(configuration: WebViewConfiguration(locale: "fr-FR"))
        }
        // A view of the same locale opens beside it.
        let second = try await open(WebViewConfiguration(locale: "de-DE"), server)
        german.close()
        #expect(try await read(second) == "de-DE | de-DE | de-DE | 1.234,5 | light | no-preference | 1 | 1280x800")
        second.close()
        let plain = try await open(WebViewConfiguration(), server)
        defer { plain.close() }
        #expect(try await read(plain) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 1 | 1280x800")
        #expect(seen.withLock { $0 } == ["de-DE", "de-DE", "en-US"])
    }

    @Test("dark and reduced motion: the page sees them, and so does every view open meanwhile; light is refused beside dark; closed, GTK's own come back")
    func colorSchemeAndMotion() async throws {
        let server = try await LoopbackServer.start(route: { _ in .html("<!doctype html><title>t</title>") })
        defer { Task { await server.shutdown() } }
        let plain = try await open(WebViewConfiguration(), server)
        defer { plain.close() }
        #expect(try await read(plain) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 1 | 1280x800")
        let dark = try await open(WebViewConfiguration(colorScheme: .dark, reducedMotion: .reduce), server)
        #expect(try await read(dark) == "en-US | en-US | en-US | 1,234.5 | dark | reduce | 1 | 1280x800")
        // The setting is the process's: the page of the view that set none follows it, without a reload.
        #expect(try await read(plain, once: " | dark | reduce | 1 | 1280x800") == "en-US | en-US | en-US | 1,234.5 | dark | reduce | 1 | 1280x800")
        #expect(throws: WebViewError.invalidConfiguration(
            "the colour scheme light cannot be used while an open view uses dark: WebKitGTK keeps one colour scheme for the whole process")) {
            try WebView(configuration: WebViewConfiguration(colorScheme: .light))
        }
        #expect(throws: WebViewError.invalidConfiguration(
            "the reduced motion no-preference cannot be used while an open view uses reduce: WebKitGTK keeps one reduced motion for the whole process")) {
            try WebView(configuration: WebViewConfiguration(reducedMotion: .noPreference))
        }
        dark.close()
        #expect(try await read(plain, once: " | light | no-preference | 1 | 1280x800")
                    == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 1 | 1280x800")
        let light = try await open(WebViewConfiguration(colorScheme: .light, reducedMotion: .noPreference), server)
        defer { light.close() }
        #expect(try await read(light) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 1 | 1280x800")
    }

    @Test("views of scale factors 2 and 1 at once: each page's devicePixelRatio and screenshot its own; a device's rounded")
    func scaleFactor() async throws {
        let server = try await LoopbackServer.start(route: { _ in .html("<!doctype html><title>t</title>") })
        defer { Task { await server.shutdown() } }
        let double = try await open(WebViewConfiguration(viewportWidth: 400, viewportHeight: 300, deviceScaleFactor: 2), server)
        defer { double.close() }
        let single = try await open(WebViewConfiguration(viewportWidth: 400, viewportHeight: 300), server)
        defer { single.close() }
        #expect(try await read(double) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 2 | 400x300")
        #expect(try await read(single) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 1 | 400x300")
        #expect(imageKind(try await double.screenshot()) == "png 800x600")
        #expect(imageKind(try await single.screenshot()) == "png 400x300")
        let pixel = try #require(Device.named("Pixel 7"))
        let phone = try await open(WebViewConfiguration().emulating(pixel), server)
        defer { phone.close() }
        #expect(try await read(phone) == "en-US | en-US | en-US | 1,234.5 | light | no-preference | 3 | 412x839")
    }

    @Test("a value out of its range: the view is refused with a line naming it",
          arguments: [
            (WebViewConfiguration(deviceScaleFactor: 0), "the device scale factor 0 is not a whole number from 1 to 4"),
            (WebViewConfiguration(deviceScaleFactor: 5), "the device scale factor 5 is not a whole number from 1 to 4"),
            (WebViewConfiguration(locale: "de_DE.UTF-8"), #"the locale "de_DE.UTF-8" is not a language tag (give one such as de-DE)"#),
          ])
    func outOfRange(_ configuration: WebViewConfiguration, _ message: String) {
        #expect(throws: WebViewError.invalidConfiguration(message)) { try WebView(configuration: configuration) }
    }
}
