/// One problem a crawl found: a broken link, a missing fragment, an orphan,
/// a page error, a console error or a budget breach.
///
/// Two crawls have the same problem when kind, URL and subject are equal:
/// the detail (a status, a measure) may change and it stays the same problem,
/// so a link that answered 404 and now 410 is still known. `navwatch diff`
/// and `crawl --baseline` compare crawls by this identity, and nothing else.
package struct CrawlProblem: Hashable, Sendable, Codable {
    package enum Kind: String, Codable, Sendable, CaseIterable, Comparable {
        /// A link target inside the scope that is broken (`CheckedTarget.Problem`, fragments aside).
        case brokenLink = "broken-link"
        /// A resource a page embeds (an image, a style sheet, a script, a
        /// media source), inside the scope or out, that is broken.
        case brokenResource = "broken-resource"
        /// A link target outside the scope, checked with plain HTTP, that is broken (resources aside).
        case brokenExternal = "broken-external"
        /// A link to a fragment its page does not have.
        case missingFragment = "missing-fragment"
        /// A link to a text fragment (`#:~:text=…`) its rendered page has no match for.
        case missingTextFragment = "missing-text-fragment"
        /// A route reached in the page that is broken when loaded directly.
        case routeNotLoadable = "route-not-loadable"
        /// A route reached in the page that shows another title when loaded directly.
        case routeDiffers = "route-differs"
        /// A page only the sitemap leads to.
        case orphan
        /// An uncaught error or unhandled rejection of a page.
        case pageError = "page-error"
        /// A console message of level error.
        case consoleError = "console-error"
        /// A page over a limit of the budget file.
        case budget

        package static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    package var kind: Kind
    /// The link target (with `#fragment` for a missing fragment), or the page.
    package var url: String
    /// What tells two problems of one URL apart: a page error's or console
    /// error's message, a budget's key; empty for links and orphans.
    package var subject: String

    package init(kind: Kind, url: String, subject: String = "") {
        self.kind = kind
        self.url = url
        self.subject = subject
    }
}

/// A problem as one crawl saw it: its identity, one line on it, and the
/// pages that link to it (for links).
package struct FoundProblem: Sendable, Equatable {
    package var problem: CrawlProblem
    /// One line: the status and reason, the error, the measure and the limit.
    package var detail: String
    /// The pages that link to it, ordered, each once; empty but for links.
    package var referrers: [String]
    /// As the crawl's `LinkPolicy` rates it: only errors fail a crawl.
    package var severity: LinkPolicy.Severity = .error
}

/// Every problem of one crawl, in a fixed order (kind, URL, subject).
package struct CrawlProblems: Sendable, Equatable {
    package var found: [FoundProblem]

    package init(_ found: [FoundProblem]) {
        self.found = found.sorted { ($0.problem.kind, $0.problem.url, $0.problem.subject)
            < ($1.problem.kind, $1.problem.url, $1.problem.subject) }
    }

    /// The problems of a crawl: its link check's, its reports' page and
    /// console errors (as listed: the first five of each page), and the
    /// breaches of `budgets` when given; each rated by `policy`.
    package init(links: LinkCheckResult, reports: some Sequence<PageLoadReport>, budgets: BudgetFile? = nil,
                policy: LinkPolicy = .init()) {
        var found: [FoundProblem] = []
        for target in links.broken {
            let kind: CrawlProblem.Kind
            switch target.problem {
            case .missingFragment?: kind = .missingFragment
            case .missingTextFragment?: kind = .missingTextFragment
            case .routeNotLoadable?: kind = .routeNotLoadable
            case .routeDiffers?: kind = .routeDiffers
            default: kind = target.isResource ? .brokenResource : target.isExternal ? .brokenExternal : .brokenLink
            }
            var referrers: [String] = []
            for link in target.referrers where referrers.last != link.source { referrers.append(link.source) }
            found.append(FoundProblem(problem: CrawlProblem(kind: kind, url: target.target), detail: target.detail,
                                      referrers: referrers, severity: policy.severity(of: kind, cause: LinkPolicy.cause(of: target))))
        }
        for orphan in links.orphans {
            found.append(FoundProblem(problem: CrawlProblem(kind: .orphan, url: orphan), detail: "only the sitemap leads to it",
                                      referrers: [], severity: policy.severity(of: .orphan, cause: nil)))
        }
        for report in reports where report.wasLoaded {
            var seen = Set<CrawlProblem>()
            for error in report.pageErrors ?? [] {
                let problem = CrawlProblem(kind: .pageError, url: report.url, subject: error.message)
                if seen.insert(problem).inserted {
                    found.append(FoundProblem(problem: problem, detail: error.message, referrers: [],
                                              severity: policy.severity(of: .pageError, cause: nil)))
                }
            }
            for message in report.consoleMessages ?? [] where message.level == .error {
                let problem = CrawlProblem(kind: .consoleError, url: report.url, subject: message.text)
                if seen.insert(problem).inserted {
                    found.append(FoundProblem(problem: problem, detail: message.text, referrers: [],
                                              severity: policy.severity(of: .consoleError, cause: nil)))
                }
            }
            for breach in budgets?.breaches(of: report) ?? [] {
                found.append(FoundProblem(problem: CrawlProblem(kind: .budget, url: report.url, subject: breach.budget),
                                          detail: breach.line, referrers: [], severity: policy.severity(of: .budget, cause: nil)))
            }
        }
        self.init(found)
    }

    /// The problems of `self` that `baseline` does not have, those it has too, and those only `baseline` has.
    package func compared(with baseline: CrawlProblems) -> (new: [FoundProblem], known: [FoundProblem], fixed: [FoundProblem]) {
        let mine = Set(found.map(\.problem)), theirs = Set(baseline.found.map(\.problem))
        return (found.filter { !theirs.contains($0.problem) }, found.filter { theirs.contains($0.problem) },
                baseline.found.filter { !mine.contains($0.problem) })
    }
}
