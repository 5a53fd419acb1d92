import ArgumentParser
import NavWatchCrawler

/// `--render`: a `RenderMode` by its name.
package struct RenderModeArgument: ExpressibleByArgument, Sendable {
    let value: RenderMode

    package init?(argument: String) {
        guard let value = RenderMode(rawValue: argument) else { return nil }
        self.value = value
    }

    package static var allValueStrings: [String] { RenderMode.allCases.map(\.rawValue) }
    package var defaultValueDescription: String { value.rawValue }
}
