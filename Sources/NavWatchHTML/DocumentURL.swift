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
        /// `scheme://authority` of the base; nil when the base has no authority.
        private let prefix: [UInt8]?
        /// The base's path; its path up to its last `/` (`/` for none); its query.
        private let path: [UInt8], directory: [UInt8], query: [UInt8]?
        private let scheme: String

        package init(base: URL) {
            self.base = base
            let components = URLComponents(url: base, resolvingAgainstBaseURL: true)
            scheme = base.scheme?.lowercased() ?? ""
            if let components, let host = components.percentEncodedHost, !host.isEmpty,
               components.percentEncodedUser == nil, let schemeText = components.scheme {
                prefix = Array("\(schemeText)://\(host)\(components.port.map { ":\($0)" } ?? "")".utf8)
            } else {
                prefix = nil
            }
            let path = Array((components?.percentEncodedPath ?? "").utf8)
            self.path = path
            // A base with an authority and no path has the directory `/`.
            directory = path.lastIndex(of: UInt8(ascii: "/")).map { Array(path[...$0]) } ?? [UInt8(ascii: "/")]
            query = components?.percentEncodedQuery.map { Array($0.utf8) }
        }

        /// The absolute URL `value` points at; nil when it does not resolve.
        package func resolve(_ value: String) -> String? {
            if let prefix, let direct = value.utf8.withContiguousStorageIfAvailable({ direct($0, of: value, prefix: prefix) }),
               let direct {
                return direct
            }
            return DocumentURL.slowResolve(value, against: base)
        }

        /// RFC 3986 section 5.2.2 for a reference (`value`, whose UTF-8 is
        /// `bytes`) of plain characters and no authority of its own, or an
        /// absolute URL Foundation gives back as written; nil for anything
        /// else (left to Foundation).
        private func direct(_ bytes: UnsafeBufferPointer<UInt8>, of value: String, prefix: [UInt8]) -> String? {
            guard !bytes.isEmpty, bytes.allSatisfy(Self.isPlain) else { return nil }
            if Self.isPlainAbsolute(bytes) { return value }
            for byte in bytes {
                if byte == UInt8(ascii: ":") { return nil }  // a scheme of its own
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            }
            if bytes.count >= 2, bytes[0] == UInt8(ascii: "/"), bytes[1] == UInt8(ascii: "/") { return nil }  // an authority of its own
            // The fragment and the query, each from its mark on.
            var fragment = bytes.count..<bytes.count
            if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) {
                if bytes[(hash + 1)...].contains(UInt8(ascii: "#")) { return nil }  // a second `#` is escaped
                fragment = hash..<bytes.count
            }
            var ownQuery = fragment.lowerBound..<fragment.lowerBound
            if let mark = bytes[..<fragment.lowerBound].firstIndex(of: UInt8(ascii: "?")) {
                ownQuery = mark..<fragment.lowerBound
            }
            let ownPath = bytes[..<ownQuery.lowerBound]
            var result = prefix
            result.reserveCapacity(prefix.count + directory.count + bytes.count + (query?.count ?? 0) + 1)
            if ownPath.isEmpty {
                result += path
                if !ownQuery.isEmpty {
                    result += bytes[ownQuery]
                } else if let query {
                    result.append(UInt8(ascii: "?"))
                    result += query
                }
            } else {
                let merged = ownPath[0] == UInt8(ascii: "/") ? Array(ownPath) : directory + ownPath
                result += Self.removingDotSegments(merged)
                result += bytes[ownQuery]
            }
            result += bytes[fragment]
            return String(decoding: result, as: UTF8.self)
        }

        /// Whether `bytes` (plain characters) are an `http` or `https` URL
        /// whose authority is a host name of letters, digits, `-`, `.`, `_`
        /// and `~`, with a port of digits or none, and which has at most one
        /// `#`: Foundation resolves such a URL to itself, as written.
        private static func isPlainAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var rest = bytes[...]
            if rest.starts(with: "http://".utf8) {
                rest = rest.dropFirst(7)
            } else if rest.starts(with: "https://".utf8) {
                rest = rest.dropFirst(8)
            } else {
                return false
            }
            var inPort = false, hashes = 0, inAuthority = true
            for byte in rest {
                if byte == UInt8(ascii: "#") { hashes += 1 }
                guard inAuthority else { continue }
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                    inAuthority = false
                case UInt8(ascii: ":"):
                    guard !inPort else { return false }
                    inPort = true
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    break
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"),
                     UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    guard !inPort else { return false }
                default:
                    return false
                }
            }
            return hashes <= 1
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
        static func removingDotSegments(_ bytes: [UInt8]) -> [UInt8] {
            guard hasDotSegment(bytes) else { return bytes }
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
            return output.isEmpty ? [UInt8(ascii: "/")] : output
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
