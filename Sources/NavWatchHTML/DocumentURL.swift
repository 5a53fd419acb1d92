import Foundation

/// Resolves a URL attribute of a document against its base URL, as a
/// browser does before the crawler sees the link (`a.href`): the crawl's
/// own canonical form (`URLCanonicalizer`) applies after it, on both paths.
///
/// The WHATWG URL parser's leniencies that change where a link of a real
/// page leads are applied before Foundation's RFC 3986 resolution: leading
/// and trailing C0 controls and spaces are dropped, tabs and newlines
/// anywhere are removed, `\` is `/` in the path of an http(s) URL, an empty
/// value is the base URL, and `http:path` (the base's own scheme, no `//`)
/// is relative. Characters a URL cannot hold (spaces, non-ASCII) are
/// percent-encoded as UTF-8, as browsers do for UTF-8 documents.
package enum DocumentURL {
    private static let specialSchemes: Set<String> = ["http", "https", "ftp", "ws", "wss", "file"]

    /// The absolute URL `value` points at from `base`; nil when it does not resolve.
    package static func resolve(_ value: String, against base: URL) -> String? {
        Resolver(base: base).resolve(value)
    }

    /// Resolves many values against one base: the base is read once, and a
    /// value made only of characters a URL holds as they are (most links) is
    /// resolved by RFC 3986's algorithm directly, which gives what
    /// Foundation gives, without building a `URL`.
    package struct Resolver {
        let base: URL
        /// `scheme://authority` of the base, its path and its query; nil when the base has no authority.
        private let prefix: String?, path: String, query: String?
        private let scheme: String

        package init(base: URL) {
            self.base = base
            let components = URLComponents(url: base, resolvingAgainstBaseURL: true)
            scheme = base.scheme?.lowercased() ?? ""
            if let components, let host = components.percentEncodedHost, !host.isEmpty,
               components.percentEncodedUser == nil, let schemeText = components.scheme {
                prefix = "\(schemeText)://\(host)" + (components.port.map { ":\($0)" } ?? "")
            } else {
                prefix = nil
            }
            path = components?.percentEncodedPath ?? ""
            query = components?.percentEncodedQuery
        }

        /// The absolute URL `value` points at; nil when it does not resolve.
        package func resolve(_ value: String) -> String? {
            if let prefix, let direct = direct(value, prefix: prefix) { return direct }
            return DocumentURL.slowResolve(value, against: base)
        }

        /// RFC 3986 section 5.2.2 for a reference of plain characters and no
        /// authority of its own; nil for anything else (left to Foundation).
        private func direct(_ value: String, prefix: String) -> String? {
            var utf8 = value.utf8[...]
            guard !utf8.isEmpty, utf8.allSatisfy(Self.isPlain) else { return nil }
            if let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
               !utf8[..<colon].contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                return nil  // a scheme of its own
            }
            if utf8.starts(with: "//".utf8) { return nil }  // an authority of its own
            var fragment: Substring.UTF8View.SubSequence?
            if let hash = utf8.firstIndex(of: UInt8(ascii: "#")) {
                fragment = utf8[utf8.index(after: hash)...]
                if fragment!.contains(UInt8(ascii: "#")) { return nil }  // a second `#` is escaped
                utf8 = utf8[..<hash]
            }
            var ownQuery: Substring.UTF8View.SubSequence?
            if let mark = utf8.firstIndex(of: UInt8(ascii: "?")) {
                ownQuery = utf8[utf8.index(after: mark)...]
                utf8 = utf8[..<mark]
            }
            let ownPath = String(Substring(utf8))
            var result = prefix
            if ownPath.isEmpty {
                result += path
                if let ownQuery { result += "?" + String(Substring(ownQuery)) } else if let query { result += "?" + query }
            } else {
                // The base's path up to its last `/` (a base with an authority and no path is `/`).
                let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
                let merged = ownPath.hasPrefix("/") ? ownPath : directory + ownPath
                result += Self.removingDotSegments(merged)
                if let ownQuery { result += "?" + String(Substring(ownQuery)) }
            }
            if let fragment { result += "#" + String(Substring(fragment)) }
            return result
        }

        /// Characters a URL holds as they are: RFC 3986's unreserved and
        /// reserved characters (not `%`, which Foundation keeps only before two hex digits).
        private static func isPlain(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
                 UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                 UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
                 UInt8(ascii: "?"), UInt8(ascii: "#"):
                return true
            default:
                return false
            }
        }

        /// RFC 3986 section 5.2.4, for an absolute path (`/...`): `.` and `..` segments removed.
        static func removingDotSegments(_ path: String) -> String {
            let bytes = Array(path.utf8)
            guard hasDotSegment(bytes) else { return path }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var kept: [Int] = []  // where each segment kept starts in `output` (at its `/`)
            var start = 0
            while start < bytes.count {
                var end = start + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
                let segment = bytes[(start + 1)..<end], isLast = end >= bytes.count
                if segment.elementsEqual(".".utf8) {
                    if isLast { output.append(UInt8(ascii: "/")) }
                } else if segment.elementsEqual("..".utf8) {
                    if let last = kept.popLast() { output.removeSubrange(last...) }
                    if isLast { output.append(UInt8(ascii: "/")) }
                } else {
                    kept.append(output.count)
                    output.append(contentsOf: bytes[start..<end])
                }
                start = end
            }
            return output.isEmpty ? "/" : String(decoding: output, as: UTF8.self)
        }

        /// Whether an absolute path has a `.` or `..` segment.
        private static func hasDotSegment(_ bytes: [UInt8]) -> Bool {
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ".") {
                    var end = index + 2
                    if end < bytes.count, bytes[end] == UInt8(ascii: ".") { end += 1 }
                    if end == bytes.count || bytes[end] == UInt8(ascii: "/") { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// `resolve` through Foundation, for every value the direct path leaves.
    static func slowResolve(_ value: String, against base: URL) -> String? {
        var scalars = Substring(value).unicodeScalars
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: scalars.lazy.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
        var text = String(cleaned)
        guard !text.isEmpty else { return withoutFragment(base).absoluteString }

        let scheme = self.scheme(of: text)
        let baseScheme = base.scheme?.lowercased()
        if let scheme, scheme == baseScheme, specialSchemes.contains(scheme) {
            let rest = text.dropFirst(scheme.count + 1)
            if !rest.hasPrefix("/") && !rest.hasPrefix("\\") { text = String(rest) }  // `http:page.html`
        }
        if specialSchemes.contains(self.scheme(of: text) ?? baseScheme ?? "") {
            // Backslashes are slashes up to the query or fragment.
            let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? text.endIndex
            text.replaceSubrange(text.startIndex..<end, with: text[..<end].replacingOccurrences(of: "\\", with: "/"))
        }
        return URL(string: text, relativeTo: base)?.absoluteString
    }

    /// The scheme `text` starts with, lower-cased (`[A-Za-z][A-Za-z0-9+.-]*:`).
    private static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else { return nil }
        let scheme = text[..<colon]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return scheme.lowercased()
    }

    private static func withoutFragment(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), components.fragment != nil
        else { return url }
        components.fragment = nil
        return components.url ?? url
    }
}
