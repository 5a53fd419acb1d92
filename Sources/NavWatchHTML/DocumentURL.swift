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
