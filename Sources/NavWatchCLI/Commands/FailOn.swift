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

    /// Whether the link check, or the budgets (`budgetBreaches` of them), found any of the findings.
    func isMet(by result: LinkCheckResult, budgetBreaches: Int) -> Bool {
        findings.contains { finding in
            switch finding {
            case .broken: return !result.brokenInScope.isEmpty
            case .external: return !result.brokenExternal.isEmpty
            case .fragments: return !result.missingFragments.isEmpty
            case .orphans: return !result.orphans.isEmpty
            case .budgets: return budgetBreaches > 0
            }
        }
    }
}
