import ArgumentParser
import NavWatchCrawler

/// `--scope`: a `CrawlScope` by its name.
package struct ScopeArgument: ExpressibleByArgument, Sendable {
    let value: CrawlScope

    package init?(argument: String) {
        guard let value = CrawlScope(rawValue: argument) else { return nil }
        self.value = value
    }

    package static var allValueStrings: [String] { CrawlScope.allCases.map(\.rawValue) }
    package var defaultValueDescription: String { value.rawValue }
}
