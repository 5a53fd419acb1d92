import ArgumentParser
import NavWatch

/// `--device`, `--viewport` and `--timezone`: what the pages of `navwatch URL` and
/// `navwatch crawl` see of the screen and the clock
/// (`WebViewConfiguration.emulating(_:)`, `viewportWidth`, `viewportHeight` and `timeZone`).
package struct EmulationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A device's viewport and User-Agent, as Playwright names it: \(Device.all.map(\.name).joined(separator: ", ")). --viewport and --user-agent override its own.",
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
        return configuration
    }
}
