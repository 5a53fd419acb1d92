import Foundation

/// The rules of one host's robots.txt that apply to a user agent, matched as
/// Google documents it: the longest matching `Allow` or `Disallow` path wins,
/// `Allow` on a tie; `*` matches any characters and `$` anchors the end.
package struct RobotsTxt: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        let allow: Bool
        let pattern: String
    }

    let rules: [Rule]

    /// Everything allowed (no robots.txt, or one that could not be fetched).
    package static let allowAll = RobotsTxt(rules: [])

    /// Parses `text`, keeping the group for `userAgent` (by product token,
    /// case-insensitive) or, failing that, the `*` group.
    package init(_ text: String, userAgent: String = "navwatch") {
        var groups: [(agents: [String], rules: [Rule])] = []
        var readingAgents = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            let field = parts[0].lowercased(), value = parts[1]
            switch field {
            case "user-agent":
                if !readingAgents || groups.isEmpty { groups.append(([], [])) }
                groups[groups.count - 1].agents.append(value.lowercased())
                readingAgents = true
            case "allow", "disallow":
                readingAgents = false
                guard !groups.isEmpty, !(field == "disallow" && value.isEmpty) else { continue }
                groups[groups.count - 1].rules.append(Rule(allow: field == "allow", pattern: value))
            default:
                readingAgents = false
            }
        }
        let token = userAgent.lowercased()
        let chosen = groups.first { $0.agents.contains { $0 != "*" && token.hasPrefix($0) } }
            ?? groups.first { $0.agents.contains("*") }
        rules = chosen?.rules ?? []
    }

    private init(rules: [Rule]) {
        self.rules = rules
    }

    /// Whether `url` may be fetched.
    package func allows(_ url: URL) -> Bool {
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var best: Rule?
        for rule in rules where Self.matches(rule.pattern, path) {
            if best == nil || rule.pattern.count > best!.pattern.count
                || (rule.pattern.count == best!.pattern.count && rule.allow) {
                best = rule
            }
        }
        return best?.allow ?? true
    }

    static func matches(_ pattern: String, _ path: String) -> Bool {
        let anchored = pattern.hasSuffix("$")
        let body = anchored ? String(pattern.dropLast()) : pattern
        let pieces = body.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        var index = path.startIndex
        for (position, piece) in pieces.enumerated() {
            if position == 0 {
                guard path.hasPrefix(piece) else { return false }
                index = path.index(index, offsetBy: piece.count)
            } else if piece.isEmpty {
                continue
            } else {
                guard let found = path.range(of: piece, range: index..<path.endIndex) else { return false }
                index = found.upperBound
            }
        }
        if anchored {
            if pieces.last?.isEmpty == true && pieces.count > 1 { return true }
            guard let last = pieces.last else { return index == path.endIndex }
            return path.hasSuffix(last) && index <= path.endIndex
        }
        return true
    }
}
