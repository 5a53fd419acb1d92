import ArgumentParser
import NavWatchCrawler

/// `--fail-on`: which findings of the link check fail a crawl.
package struct FailOn: ExpressibleByArgument, Sendable, CustomStringConvertible {
    package enum Finding: String, CaseIterable, Sendable {
        /// Broken links inside the scope.
        case broken
        /// Broken links outside it (with --check-external).
        case external
        /// Links to a fragment that their page does not have.
        case fragments
        /// Pages only the sitemap leads to.
        case orphans
        /// Pages over a limit of the `--budgets` file.
        case budgets
    }

    let findings: [Finding]

    package init?(argument: String) {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let findings = parts.compactMap(Finding.init(rawValue:))
        guard !parts.isEmpty, findings.count == parts.count else { return nil }
        self.findings = findings
    }

    package static var allValueStrings: [String] { Finding.allCases.map(\.rawValue) }
    package var description: String { findings.map(\.rawValue).joined(separator: ",") }

    /// Whether any of `problems` is of a kind of the findings.
    func isMet(by problems: [FoundProblem]) -> Bool {
        let kinds = Set(findings.map(\.problem))
        return problems.contains { kinds.contains($0.problem.kind) }
    }
}

extension FailOn.Finding {
    /// The kind of problem the finding names.
    var problem: CrawlProblem.Kind {
        switch self {
        case .broken: return .brokenLink
        case .external: return .brokenExternal
        case .fragments: return .missingFragment
        case .orphans: return .orphan
        case .budgets: return .budget
        }
    }
}
