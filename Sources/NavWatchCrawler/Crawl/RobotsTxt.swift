import Foundation

/// The rules of one host's robots.txt that apply to a user agent, matched as
/// Google documents it: the longest matching `Allow` or `Disallow` path wins,
/// `Allow` on a tie; `*` matches any characters and `$` anchors the end. A
/// byte order mark before the first line is ignored.
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
        for rawLine in text.trimmingPrefix("\u{FEFF}").split(whereSeparator: \.isNewline) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            // An empty value counts: `Disallow:` is a rule, which ends the group's User-agent lines.
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else { continue }
            let field = parts[0].lowercased(), value = parts[1]
            switch field {
            case "user-agent":
                guard !value.isEmpty else { continue }
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
        let characters = Array(path)
        var best: Rule?
        for rule in rules where Self.matches(rule.pattern, characters) {
            if best == nil || rule.pattern.count > best!.pattern.count
                || (rule.pattern.count == best!.pattern.count && rule.allow) {
                best = rule
            }
        }
        return best?.allow ?? true
    }

    static func matches(_ pattern: String, _ path: [Character]) -> Bool {
        let anchored = pattern.hasSuffix("$")
        let body = anchored ? String(pattern.dropLast()) : pattern
        let pieces = body.split(separator: "*", omittingEmptySubsequences: false).map(Array.init)
        var index = 0
        for (position, piece) in pieces.enumerated() {
            if position == 0 {
                guard path.starts(with: piece) else { return false }
                index = piece.count
            } else if piece.isEmpty {
                continue
            } else {
                guard let end = endOfFirst(piece, in: path[index...]) else { return false }
                index = end
            }
        }
        if anchored {
            if pieces.count == 1 { return index == path.count }
            // The last piece matched somewhere after the others: it may also match at the end.
            let last = pieces.last!
            return last.isEmpty || path.suffix(last.count).elementsEqual(last)
        }
        return true
    }

    /// Where the first `piece` (not empty) in `text` ends, by Knuth-Morris-Pratt:
    /// in linear time, where Foundation's `range(of:)` and the standard
    /// library's `firstRange(of:)` take |text| x |piece| steps on near misses.
    private static func endOfFirst(_ piece: [Character], in text: ArraySlice<Character>) -> Int? {
        // border[i]: the length of the longest proper prefix of piece[..<i] that is also its suffix.
        var border = Array(repeating: 0, count: piece.count + 1)
        var length = 0
        for i in piece.indices.dropFirst() {
            while length > 0 && piece[i] != piece[length] { length = border[length] }
            if piece[i] == piece[length] { length += 1 }
            border[i + 1] = length
        }
        var matched = 0
        for i in text.indices {
            while matched > 0 && text[i] != piece[matched] { matched = border[matched] }
            if text[i] == piece[matched] { matched += 1 }
            if matched == piece.count { return i + 1 }
        }
        return nil
    }
}
