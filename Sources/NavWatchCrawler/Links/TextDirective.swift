/// One text directive of a URL's fragment: `#:~:text=[prefix-,]start[,end][,-suffix]`
/// (URL Fragment Text Directives, WICG), which browsers scroll to and highlight.
///
/// A fragment may start with an element id before its directives
/// (`#usage:~:text=install`), and may hold several directives, separated by
/// `&`; only `text=` directives are read, others are ignored as browsers
/// ignore them. Each term is percent-decoded after the value is split at
/// its commas and dashes, so `%2C` and `%2D` are a comma and a dash of the
/// text.
package struct TextDirective: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Text that must come right before the match (white space between them aside).
    package var prefix: String?
    /// The text matched, or the start of a range.
    package var start: String
    /// The end of a range from `start`, when the directive gives one.
    package var end: String?
    /// Text that must come right after the match (white space between them aside).
    package var suffix: String?

    /// The directive's terms, decoded, in quotes: `"prefix-", "start", "end", "-suffix"`.
    package var description: String {
        [prefix.map { "\"\($0)-\"" }, "\"\(start)\"", end.map { "\"\($0)\"" }, suffix.map { "\"-\($0)\"" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    package init(prefix: String? = nil, start: String, end: String? = nil, suffix: String? = nil) {
        (self.prefix, self.start, self.end, self.suffix) = (prefix, start, end, suffix)
    }

    /// The directive of `value`, the text after `text=` as written in the URL;
    /// nil when it is not a valid one: an empty term, more than start and end
    /// between the prefix and the suffix, an escape that is not UTF-8, or a
    /// character a URL cannot have unescaped there (`#`, `&`, white space).
    package init?(value: String) {
        guard !value.isEmpty, !value.contains(where: { $0 == "#" || $0 == "&" || $0.isWhitespace }) else { return nil }
        var terms = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (1...4).contains(terms.count) else { return nil }
        var prefix: String?, suffix: String?
        // As the specification parses: a first term ending in `-` is the prefix and a
        // last one starting with `-` the suffix, whatever is left (`text=foo-` is no directive).
        if let first = terms.first, first.hasSuffix("-") {
            prefix = String(first.dropLast())
            terms.removeFirst()
        }
        if let last = terms.last, last.hasPrefix("-") {
            suffix = String(last.dropFirst())
            terms.removeLast()
        }
        guard (1...2).contains(terms.count) else { return nil }
        var decoded: [String?] = []
        for term in [prefix, terms[0], terms.count > 1 ? terms[1] : nil, suffix] {
            guard let term else {
                decoded.append(nil)
                continue
            }
            guard let text = term.removingPercentEncoding, !text.isEmpty else { return nil }
            decoded.append(text)
        }
        guard let start = decoded[1] else { return nil }
        self.init(prefix: decoded[0], start: start, end: decoded[2], suffix: decoded[3])
    }

    /// A fragment's element id (before `:~:`, nil when there is none) and
    /// the values of its `text=` directives, as written (still escaped); nil
    /// when the fragment has no directives.
    package static func split(fragment: String) -> (element: String?, values: [String])? {
        // Most fragments have no `~`: Foundation's search is not asked (it is costly, once per link).
        guard fragment.utf8.contains(UInt8(ascii: "~")), let delimiter = fragment.range(of: ":~:") else { return nil }
        let element = fragment[..<delimiter.lowerBound]
        let values = fragment[delimiter.upperBound...].split(separator: "&", omittingEmptySubsequences: true)
            .filter { $0.hasPrefix("text=") }.map { String($0.dropFirst(5)) }
        return (element.isEmpty ? nil : String(element), values)
    }
}
