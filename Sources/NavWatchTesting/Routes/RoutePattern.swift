import Foundation

/// Which URLs a route matches: a glob (as Playwright's), a regular
/// expression, or a test of your own. Matched against the whole URL
/// (`https://host:port/path?query`).
///
/// In a glob, `**` matches any characters, `*` any but `/`, `{a,b}` either
/// `a` or `b`; every other character matches itself, `?` included. So
/// `**/api/**` matches every URL with an `/api/` path segment, and
/// `https://example.org/*.png` the PNGs at that site's root.
public struct RoutePattern: Sendable, CustomStringConvertible {
    private let test: @Sendable (String) -> Bool
    /// The pattern as given: the glob, `/regex/`, or `predicate`.
    public let description: String

    /// A glob.
    ///
    /// - Throws: `RouteError.invalidPattern` for an empty glob, or a `{` without its `}` (or the other way round).
    public init(glob: String) throws(RouteError) {
        let expression = try Self.regularExpression(ofGlob: glob)
        guard let regex = try? NSRegularExpression(pattern: expression) else {
            throw .invalidPattern(glob, "it cannot be read as a glob")
        }
        description = glob
        test = ImmutableRegex(regex).matches
    }

    /// A regular expression (NSRegularExpression's syntax), matched anywhere in the URL, as JavaScript's `test` does.
    ///
    /// - Throws: `RouteError.invalidPattern` when it does not parse.
    public init(regularExpression: String) throws(RouteError) {
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: regularExpression)
        } catch {
            throw .invalidPattern(regularExpression, "it is not a regular expression")
        }
        description = "/\(regularExpression)/"
        test = ImmutableRegex(regex).matches
    }

    /// URLs for which `predicate` is true.
    public init(_ predicate: @escaping @Sendable (URL) -> Bool) {
        description = "predicate"
        test = { url in URL(string: url).map(predicate) ?? false }
    }

    /// Whether the pattern matches `url` (absolute, as the request has it).
    public func matches(_ url: String) -> Bool { test(url) }

    /// The anchored regular expression of `glob`.
    static func regularExpression(ofGlob glob: String) throws(RouteError) -> String {
        guard !glob.isEmpty else { throw .invalidPattern(glob, "it is empty") }
        var expression = "^"
        var inGroup = false
        var characters = glob[...]
        while let character = characters.popFirst() {
            switch character {
            case "*":
                if characters.first == "*" {
                    characters.removeFirst()
                    expression += ".*"
                } else {
                    expression += "[^/]*"
                }
            case "{":
                guard !inGroup else { throw .invalidPattern(glob, "a { inside another") }
                inGroup = true
                expression += "(?:"
            case "}":
                guard inGroup else { throw .invalidPattern(glob, "a } without its {") }
                inGroup = false
                expression += ")"
            case "," where inGroup:
                expression += "|"
            default:
                expression += NSRegularExpression.escapedPattern(for: String(character))
            }
        }
        guard !inGroup else { throw .invalidPattern(glob, "a { without its }") }
        return expression + "$"
    }
}

/// A compiled regular expression, which NSRegularExpression's documentation
/// says is safe to use from any thread (it is immutable).
private final class ImmutableRegex: @unchecked Sendable {
    private let regex: NSRegularExpression

    init(_ regex: NSRegularExpression) { self.regex = regex }

    @Sendable func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// A route that cannot be set.
public enum RouteError: Error, Equatable, CustomStringConvertible {
    /// The pattern does not parse: the pattern, and why.
    case invalidPattern(String, String)
    /// The view cannot have routes: why (it is closed, it shares its storage).
    case cannotRoute(String)

    /// The problem, one line.
    public var description: String {
        switch self {
        case .invalidPattern(let pattern, let why): "the route pattern \(pattern.debugDescription) is not valid: \(why)"
        case .cannotRoute(let why): "cannot route the view's requests: \(why)"
        }
    }
}
