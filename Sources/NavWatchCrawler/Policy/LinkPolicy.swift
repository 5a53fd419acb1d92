import Foundation

/// What a link check accepts and how much its problems matter: the
/// statuses that count as fine per URL pattern, and the severity of each
/// kind of problem. The defaults: a status below 400 is fine, and every
/// problem is an error but 429, 5xx, timeouts and TLS failures of links
/// outside the scope, which are warnings.
package struct LinkPolicy: Sendable {
    /// Statuses that count as fine for the URLs a pattern matches.
    package struct Acceptance: Sendable {
        /// The regular expression as written (found anywhere in the URL); nil matches every URL.
        package var pattern: String?
        package var statuses: StatusRanges
        private let expression: NSRegularExpression?

        package init(pattern: String?, statuses: StatusRanges) throws {
            self.pattern = pattern
            self.statuses = statuses
            expression = try pattern.map { try NSRegularExpression(pattern: $0) }
        }

        func matches(_ url: String) -> Bool {
            guard let expression else { return true }
            return expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
        }
    }

    package enum Severity: String, Sendable, Codable, CaseIterable {
        case error, warning
    }

    /// Causes of a problem of a link outside the scope that have a severity of their own.
    package static let externalCauses = ["external-429", "external-5xx", "external-timeout", "external-tls"]
    /// Every key of a severity table: the kinds of problem, then the causes.
    package static let severityKeys = CrawlProblem.Kind.allCases.map(\.rawValue) + externalCauses

    /// The last that matches a URL decides its statuses.
    package var acceptances: [Acceptance]
    /// Severities set by key (`severityKeys`); the rest keep their defaults.
    package var severities: [String: Severity]

    package init(acceptances: [Acceptance] = [], severities: [String: Severity] = [:]) {
        self.acceptances = acceptances
        self.severities = severities
    }

    /// Whether `status` counts as fine for `url`: as the last acceptance
    /// whose pattern matches says, or, with none, when it is below 400.
    package func accepts(_ status: Int, for url: String) -> Bool {
        guard let acceptance = acceptances.last(where: { $0.matches(url) }) else { return status < 400 }
        return acceptance.statuses.contains(status)
    }

    /// The severity of a problem of `kind`, whose cause (for a link outside the scope) is `cause`.
    package func severity(of kind: CrawlProblem.Kind, cause: String?) -> Severity {
        if let cause, let severity = severities[cause] ?? (Self.externalCauses.contains(cause) ? .warning : nil) {
            return severity
        }
        return severities[kind.rawValue] ?? .error
    }

    /// The cause key of a broken link outside the scope: `external-429`,
    /// `external-5xx`, `external-timeout` or `external-tls`; nil for others.
    static func cause(of target: CheckedTarget) -> String? {
        guard target.isExternal, let report = target.report else { return nil }
        if report.outcome == .timeout { return "external-timeout" }
        if report.errorKind == .tls { return "external-tls" }
        switch report.status {
        case 429: return "external-429"
        case .some(500...599): return "external-5xx"
        default: return nil
        }
    }
}
