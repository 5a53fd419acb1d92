import ArgumentParser
import NavWatch

/// `--device`, `--viewport`, `--timezone`, `--locale`, `--color-scheme` and
/// `--reduced-motion`: what the pages of `navwatch URL` and `navwatch crawl`
/// see of the screen, the clock and the user's preferences
/// (`WebViewConfiguration.emulating(_:)`, `viewportWidth`, `viewportHeight`,
/// `timeZone`, `locale`, `colorScheme` and `reducedMotion`).
package struct EmulationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A device's viewport, User-Agent and scale factor, as Playwright names it: \(Device.all.map(\.name).joined(separator: ", ")). --viewport and --user-agent override its own.",
        valueName: "name"))
    package var device: String?

    @Option(name: .long, help: ArgumentHelp(
        "The viewport in CSS pixels, WIDTHxHEIGHT (such as 390x844); \(Self.defaultViewport) by default.", valueName: "WxH"))
    package var viewport: Viewport?

    /// `WebViewConfiguration`'s own default viewport, as `--viewport` writes it.
    private static let defaultViewport: String = {
        let configuration = WebViewConfiguration()
        return "\(configuration.viewportWidth)x\(configuration.viewportHeight)"
    }()

    @Option(name: .customLong("timezone"), help: ArgumentHelp(
        "The time zone of the pages' Date and Intl, an IANA name (such as Europe/Berlin); the system's by default.",
        valueName: "name"))
    package var timeZone: String?

    @Option(name: .long, help: ArgumentHelp(
        "The language of the pages (navigator.language, Intl) and of the requests' Accept-Language, a language tag (such as de-DE); WebKit's by default.",
        valueName: "tag"))
    package var locale: String?

    @Option(name: .long, help: ArgumentHelp(
        "The colour scheme the pages see (prefers-color-scheme): light or dark; GTK's by default.", valueName: "scheme"))
    package var colorScheme: ColorScheme?

    @Option(name: .long, help: ArgumentHelp(
        "What the pages see of prefers-reduced-motion: reduce or no-preference; GTK's by default.", valueName: "value"))
    package var reducedMotion: ReducedMotion?

    package init() {}

    /// A viewport size as `--viewport` takes it.
    package struct Viewport: ExpressibleByArgument, Sendable, Equatable {
        package var width: Int
        package var height: Int

        package init?(argument: String) {
            let sides = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]) else { return nil }
            (self.width, self.height) = (width, height)
        }
    }

    package func validate() throws {
        if let device, Device.named(device) == nil {
            throw ValidationError("the device \(device.debugDescription) is unknown (known: \(Device.all.map(\.name).joined(separator: ", ")))")
        }
        do {
            try applied(to: WebViewConfiguration()).check()
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `configuration` with the options given set on it.
    func applied(to configuration: WebViewConfiguration) -> WebViewConfiguration {
        var configuration = configuration
        if let device = device.flatMap(Device.named) {
            let userAgent = configuration.userAgent
            configuration = configuration.emulating(device)
            configuration.userAgent = userAgent ?? device.userAgent
        }
        if let viewport { (configuration.viewportWidth, configuration.viewportHeight) = (viewport.width, viewport.height) }
        if let timeZone { configuration.timeZone = timeZone }
        if let locale { configuration.locale = locale }
        if let colorScheme { configuration.colorScheme = colorScheme }
        if let reducedMotion { configuration.reducedMotion = reducedMotion }
        return configuration
    }
}

extension ColorScheme: ExpressibleByArgument {}
extension ReducedMotion: ExpressibleByArgument {}
