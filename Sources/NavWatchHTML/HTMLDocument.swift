import Foundation

/// What the crawl reads from a document it checks without rendering: the
/// same facts, by the same rules, as the rendered path's facts script reads
/// from the live page (`PageFacts`), as far as markup alone can tell them,
/// and what the document's scripts are (`scripts`), which decides whether
/// rendering could change those facts.
///
/// Built by `HTMLParser.parse`. A value: safe to send anywhere.
package struct HTMLDocument: Sendable, Equatable {
    /// One link of the document, as the facts script reads it.
    package struct Link: Sendable, Equatable {
        /// The absolute URL the element points at, resolved against the
        /// document's base URL (the attribute as written when it does not resolve).
        package var url: String
        /// The attribute as written.
        package var href: String
        /// Its text (the `alt` of an image link, an `aria-label` or `title`
        /// when it has none), white space collapsed, 200 UTF-16 code units at most.
        package var text: String
        package var rel: String
        /// `a`, `area`, `iframe` or `frame`.
        package var element: String

        package init(url: String, href: String, text: String, rel: String, element: String) {
            (self.url, self.href, self.text, self.rel, self.element) = (url, href, text, rel, element)
        }
    }

    /// What runs when the document is shown: what a render could change.
    package struct Scripts: Sendable, Hashable {
        /// The resolved URLs of `<script src>` elements, sorted, each once.
        package var sources: [String] = []
        /// Hashes of the inline scripts' shapes (`ScriptShape`: the text with
        /// its string and number literals taken out, so a template's script
        /// that carries the page's own name has one shape on all its pages;
        /// `String.hashValue`: equal within one process, not across
        /// processes), sorted, each once.
        package var inline: [Int] = []
        /// Whether any element has an event handler attribute (`onload`, `onclick`, ...)
        /// or an iframe's `src` is a `javascript:` URL.
        package var handlers = false

        /// Whether the document has anything that runs.
        package var isEmpty: Bool { sources.isEmpty && inline.isEmpty && !handlers }

        package init() {}

        /// Whether a script of this `type` runs: none, empty, a JavaScript MIME
        /// type or `module`; anything else is a data block. Unknown JavaScript
        /// spellings count as running (a render too many, never one too few).
        package static func runs(type: String?) -> Bool {
            guard let type = type?.trimmingCharacters(in: .whitespaces).lowercased(), !type.isEmpty else { return true }
            return type == "module" || type.contains("script") || !(type.contains("json") || type.contains("template")
                || type.hasPrefix("text/x-") || type == "text/html" || type == "text/plain")
        }
    }

    /// `<a href>` and `<area href>` in document order, then `<iframe src>`
    /// and `<frame src>` in document order (`document.links`, then the
    /// frames, as the facts script lists them). Links inside `<template>`
    /// and `<noscript>` are not links of a page whose scripts run.
    package var links: [Link] = []
    /// The resources the document embeds (`EmbeddedResource`), in document
    /// order; those inside `<template>` and `<noscript>` are left out, as of `links`.
    package var embedded: [EmbeddedResource] = []
    /// Every element id in document order, then every `<a name>`, each once.
    package var anchors: [String] = []
    /// `document.title`: the first `<title>`'s text, ASCII white space
    /// stripped and collapsed; nil without a `<title>`.
    package var title: String?
    /// The URL links resolve against: the first `<base href>`, else the document's own URL.
    package var baseURL: URL
    /// The `content` of the first `<meta http-equiv="refresh">`: a page that
    /// navigates by itself once shown.
    package var refresh: String?
    /// The character encoding a `<meta charset>` or `<meta http-equiv="content-type">` declares.
    package var declaredCharset: String?
    /// The encoding the bytes were read in (`CharacterEncoding.label`):
    /// `utf-8` unless a byte-order mark, the server or the document named
    /// another; nil when the one named is not an encoding navwatch reads,
    /// and the bytes were read as UTF-8.
    package var encoding: String? = "utf-8"
    package var scripts = Scripts()

    package init(baseURL: URL) {
        self.baseURL = baseURL
    }
}
