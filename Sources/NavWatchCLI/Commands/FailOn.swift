import ArgumentParser
import NavWatchCrawler

/// `--fail-on`: which findings of the link check fail a crawl.
package struct FailOn: Sendable, CustomStringConvertible {
    package enum Finding: String, CaseIterable, Sendable {
        /// Broken links inside the scope, and broken resources the pages embed (images, style sheets, scripts, media).
        case broken
        /// Broken links outside it (with --check-external).
        case external
        /// Links to a fragment that their page does not have.
        case fragments
        /// Links to a text fragment (`#:~:text=…`) that their rendered page has no match for.
        case textFragments = "text-fragments"
        /// Routes reached in a page that are broken, or show another page, when loaded directly (`--routes`).
        case routes
        /// Pages only the sitemap leads to.
        case orphans
        /// Pages over a limit of the `--budgets` file.
        case budgets
    }

    let findings: [Finding]

    /// The findings of `argument`, a comma-separated list.
    ///
    /// - Throws: `ValidationError` naming the findings there are (on one
    ///   line: ArgumentParser lists six or more allowed values on lines of their own).
    package init(argument: String) throws {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let findings = parts.compactMap(Finding.init(rawValue:))
        guard !parts.isEmpty, findings.count == parts.count else {
            throw ValidationError("give one or more of "
                + Finding.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ", separated by commas.")
        }
        self.findings = findings
    }

    package var description: String { findings.map(\.rawValue).joined(separator: ",") }

    /// Whether any of `problems` is of a kind of the findings.
    func isMet(by problems: [FoundProblem]) -> Bool {
        let kinds = Set(findings.flatMap(\.problems))
        return problems.contains { kinds.contains($0.problem.kind) }
    }
}

extension FailOn.Finding {
    /// The kinds of problem the finding names.
    var problems: [CrawlProblem.Kind] {
        switch self {
        case .broken: return [.brokenLink, .brokenResource]
        case .external: return [.brokenExternal]
        case .fragments: return [.missingFragment]
        case .textFragments: return [.missingTextFragment]
        case .routes: return [.routeNotLoadable, .routeDiffers]
        case .orphans: return [.orphan]
        case .budgets: return [.budget]
        }
    }
}
