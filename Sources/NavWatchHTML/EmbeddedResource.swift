import Foundation

/// A resource a page embeds, which a link checker checks as it checks a
/// link: an image, a style sheet or icon, a script, a media source.
///
/// Both of the crawl's paths list them by the same rule, from the
/// document's elements (Gumbo's tree, or the live DOM through the facts
/// script), and resolve them here, so that a page read from its HTML and a
/// rendered one have the same resources:
///
/// | element | attributes |
/// |---|---|
/// | `img` | `src`, every URL of `srcset` |
/// | `source` | `src`, every URL of `srcset` |
/// | `link` whose `rel` has `stylesheet` or `icon` (`shortcut icon`, `apple-touch-icon` included) | `href` |
/// | `script` that runs (no data block) | `src` |
/// | `video`, `audio` | `src` |
///
/// Frames are links of their own (`iframe src`, `frame src`); resources
/// a style sheet or a script asks for are not listed.
package struct EmbeddedResource: Sendable, Hashable {
    /// The absolute URL, resolved against the document's base URL (the value
    /// as written when it does not resolve).
    package var url: String
    /// The URL as written (one candidate of a `srcset`).
    package var value: String
    /// The element: `img`, `source`, `link`, `script`, `video` or `audio`.
    package var element: String
    /// The attribute the URL is in: `src`, `srcset` or `href`.
    package var attribute: String
    /// An image's `alt`, white space collapsed, 200 characters at most; empty for the rest.
    package var text: String

    package init(url: String, value: String, element: String, attribute: String, text: String = "") {
        (self.url, self.value, self.element, self.attribute, self.text) = (url, value, element, attribute, text)
    }

    /// Whether an element's `rel` makes a `<link>` a resource: it has the
    /// token `stylesheet`, or a token that is or ends in `icon`.
    package static func isResourceLink(rel: String) -> Bool {
        rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" })
            .contains { $0 == "stylesheet" || $0.hasSuffix("icon") }
    }

    /// The resources of one element's URL attribute: one for `src` and
    /// `href`, one per candidate for `srcset`; none for an empty value.
    package static func resources(element: String, attribute: String, value: String, text: String = "",
                                  resolver: DocumentURL.Resolver) -> [EmbeddedResource] {
        let values = attribute == "srcset" ? candidates(ofSrcset: value) : [value]
        let text = text.isEmpty ? text : String(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").prefix(200))
        return values.compactMap { value in
            guard value.contains(where: { !$0.isWhitespace }) else { return nil }
            return EmbeddedResource(url: resolver.resolve(value) ?? value, value: value, element: element,
                                    attribute: attribute, text: text)
        }
    }

    /// The URLs of a `srcset`, as the HTML standard's parser reads them:
    /// candidates are separated by commas; a URL runs to white space, and a
    /// URL's own trailing commas end its candidate; descriptors run to the
    /// next comma outside parentheses.
    package static func candidates(ofSrcset value: String) -> [String] {
        let scalars = Array(value.unicodeScalars)
        var urls: [String] = [], position = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
        while position < scalars.count {
            while position < scalars.count, isSpace(scalars[position]) || scalars[position] == "," { position += 1 }
            guard position < scalars.count else { break }
            let start = position
            while position < scalars.count, !isSpace(scalars[position]) { position += 1 }
            var url = scalars[start..<position]
            if url.last == "," {
                while url.last == "," { url = url.dropLast() }
            } else {
                // Descriptors, to the next comma outside parentheses.
                var depth = 0
                while position < scalars.count {
                    let scalar = scalars[position]
                    if scalar == "(" { depth += 1 } else if scalar == ")" { depth = max(0, depth - 1) }
                    else if scalar == ",", depth == 0 { break }
                    position += 1
                }
            }
            if !url.isEmpty {
                var text = String.UnicodeScalarView()
                text.append(contentsOf: url)
                urls.append(String(text))
            }
        }
        return urls
    }
}
