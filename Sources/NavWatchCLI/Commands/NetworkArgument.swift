import ArgumentParser
import NavWatchCrawler

/// `--network`: a `NetworkProfile` by its preset name or custom form.
package struct NetworkArgument: Sendable {
    let profile: NetworkProfile

    /// - Throws: `ValidationError` with the profile's one-line reason.
    package init(argument: String) throws {
        do { profile = try NetworkProfile(parsing: argument) } catch { throw ValidationError(error.description) }
    }

    static let help = ArgumentHelp(
        "Load pages as over this network: \(NetworkProfile.presets.map(\.name).joined(separator: ", ")), "
            + "or latency=150ms,down=1.6Mbps,up=768kbps.",
        discussion: "The presets are WebPageTest's connectivity profiles. Each byte arrives half a round trip late "
            + "each way, a new connection costs a round trip, and a view's connections share the bandwidth. "
            + "No packet loss, TCP slow start or DNS time is modelled.",
        valueName: "profile")
}
