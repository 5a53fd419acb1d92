import ArgumentParser
import NavWatchCrawler

/// `--scope`: a `CrawlScope` by its name.
public struct ScopeArgument: ExpressibleByArgument, Sendable {
    let value: CrawlScope

    public init?(argument: String) {
        guard let value = CrawlScope(rawValue: argument) else { return nil }
        self.value = value
    }

    public static var allValueStrings: [String] { CrawlScope.allCases.map(\.rawValue) }
    public var defaultValueDescription: String { value.rawValue }
}
