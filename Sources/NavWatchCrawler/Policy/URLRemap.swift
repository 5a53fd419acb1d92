import Foundation

/// A rewrite of the URLs a crawl finds: a regular expression and its
/// replacement (`$1` names a group), to check production links on staging.
public struct URLRemap: Sendable, Codable, Equatable {
    /// The regular expression (`NSRegularExpression` syntax) a URL is searched
    /// for; its first match is rewritten.
    public var pattern: String
    /// What the match becomes: a template in which `$1`, `$2`, ... stand for
    /// the pattern's groups.
    public var replacement: String
    private let expression: NSRegularExpression

    /// A rewrite of `pattern`'s first match in a URL to `replacement`.
    ///
    /// - Throws: the error of `NSRegularExpression` when `pattern` is not a
    ///   regular expression.
    public init(pattern: String, replacement: String) throws {
        self.pattern = pattern
        self.replacement = replacement
        expression = try NSRegularExpression(pattern: pattern)
    }

    private enum CodingKeys: String, CodingKey {
        case pattern, replacement
    }

    /// Decodes `pattern` and `replacement`, and compiles the pattern.
    ///
    /// - Throws: `DecodingError`, or the pattern's error when it is no valid regular expression.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(pattern: try container.decode(String.self, forKey: .pattern),
                      replacement: try container.decode(String.self, forKey: .replacement))
    }

    /// Encodes `pattern` and `replacement`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pattern, forKey: .pattern)
        try container.encode(replacement, forKey: .replacement)
    }

    /// Two remaps are equal when their pattern and replacement are.
    public static func == (lhs: URLRemap, rhs: URLRemap) -> Bool {
        lhs.pattern == rhs.pattern && lhs.replacement == rhs.replacement
    }

    /// `url` with the first match replaced; nil when the pattern does not match.
    package func apply(to url: String) -> String? {
        let range = NSRange(url.startIndex..., in: url)
        guard let match = expression.firstMatch(in: url, range: range) else { return nil }
        let replaced = expression.replacementString(for: match, in: url, offset: 0, template: replacement)
        return (url as NSString).replacingCharacters(in: match.range, with: replaced)
    }

    /// `url` as the first of `remaps` that matches rewrites it, or as it is.
    package static func apply(_ remaps: [URLRemap], to url: String) -> String {
        for remap in remaps { if let rewritten = remap.apply(to: url) { return rewritten } }
        return url
    }
}
