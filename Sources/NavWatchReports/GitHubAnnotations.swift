import NavWatchCrawler

/// GitHub Actions workflow commands, one line each, which a workflow run
/// shows as annotations: `::error title=broken-link::https://a.test/x: 404 Not Found (linked from ...)`.
enum GitHubAnnotations {
    /// One command; `title` and `message` escaped as the runner expects.
    static func line(_ severity: LinkPolicy.Severity, title: String, message: String) -> String {
        "::\(severity.rawValue) title=\(escapedProperty(title))::\(escapedData(message))"
    }

    /// One command per problem, at its severity.
    static func problems(_ problems: [FoundProblem]) -> String {
        problems.map { found in
            let referrers = found.referrers.isEmpty ? "" : " (linked from " + found.referrers.prefix(5).joined(separator: ", ")
                + (found.referrers.count > 5 ? ", and \(found.referrers.count - 5) more" : "") + ")"
            return line(found.severity, title: found.problem.kind.rawValue,
                        message: "\(found.problem.url): \(found.detail)\(referrers)") + "\n"
        }.joined()
    }

    /// `%`, CR and LF as the runner decodes them (`%25`, `%0D`, `%0A`); the
    /// other controls, which the runner would print raw, as `TerminalText.inert` writes them (`\u001b`).
    private static func escapedData(_ text: String) -> String {
        TerminalText.inert(text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A"))
    }

    private static func escapedProperty(_ text: String) -> String {
        escapedData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
