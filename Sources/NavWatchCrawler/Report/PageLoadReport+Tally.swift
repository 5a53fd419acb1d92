extension PageLoadReport {
    /// What a report counts as, in every count of reports navwatch shows:
    /// the crawl's closing summary (`CrawlSummary`) and live progress line,
    /// `navwatch status` (`CrawlCounts`), the HTML report and the step
    /// summary, and `--max-pages` (which counts the pages `loaded`). Each
    /// report is exactly one of them; `Outcome.isFailure` tells which of
    /// those loaded or checked failed.
    public enum Tally: String, Sendable, CaseIterable {
        /// A page of the crawl, rendered or read from its HTML, whatever it
        /// answered: an HTTP error, a failed load, a timeout or a crash included.
        case loaded
        /// No page: a link outside the crawl's scope, or a resource a page
        /// embeds, checked with a plain HTTP request or answered otherwise
        /// (`checkedWith`), whatever it answered.
        case checked
        /// Not asked for, by a rule (`skipReason`): outside the scope while
        /// external links are not checked, disallowed by robots.txt, beyond
        /// a limit, ignored by the policy.
        case skipped
        /// Not asked for: the guard refused its address, or it redirected
        /// to a scheme navwatch does not fetch (`Outcome.blocked`).
        case blocked

        /// The tally of a report that ended with `outcome`: of a link or
        /// resource to check (`isCheck`), or of a page.
        package init(outcome: Outcome, isCheck: Bool) {
            switch outcome {
            case .skipped: self = .skipped
            case .blocked: self = .blocked
            case .ok, .httpError, .failed, .timeout, .crashed, .download: self = isCheck ? .checked : .loaded
            }
        }
    }

    /// What this report counts as.
    public var tally: Tally {
        Tally(outcome: outcome, isCheck: resource == true || external == true || checkedWith != nil)
    }
}

extension PageLoadReport.Outcome {
    /// Whether the load or check got no answer: none at all (`failed`), a
    /// timeout or a crash. A page loaded or a link checked that failed
    /// counts as failed (an HTTP error does not: it is an answer).
    public var isFailure: Bool {
        switch self {
        case .failed, .timeout, .crashed: true
        case .ok, .httpError, .download, .skipped, .blocked: false
        }
    }
}
