import Foundation

/// What a reader of a document's elements collects, in document order, before
/// the URLs resolve (a `<base>` may come after a link): one `HTMLDocument`
/// from it by one rule, whichever reader walked the elements (`HTMLParser`'s
/// over Gumbo's tree, `HTMLTokenReader` over the tokens).
struct DocumentFacts {
    /// A link element (`a`, `area`, `iframe`, `frame`) with its URL attribute's value.
    struct LinkElement {
        var value: String
        var text: String
        var rel: String
        var element: String
    }

    /// An element with a resource's URL: its name, the attribute, the value and an image's `alt`.
    struct Embed {
        var element: String
        var attribute: String
        var value: String
        var alt: String
    }

    /// `a` and `area` with `href`, in document order.
    var anchors: [LinkElement] = []
    /// `iframe` and `frame` with `src`, in document order.
    var frames: [LinkElement] = []
    var ids: [String] = [], names: [String] = []
    var baseHref: String?
    var title: String?
    var refresh: String?
    var declaredCharset: String?
    var scriptSources: [String] = []
    var inlineScripts: Set<Int> = []
    var handlers = false
    var embeds: [Embed] = []

    /// Reads a `<meta>`'s attributes: the first charset it declares, the first refresh.
    mutating func readMeta(charset: String?, httpEquiv: String?, content: String?) {
        if declaredCharset == nil, let charset {
            declaredCharset = charset.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let equiv = httpEquiv?.lowercased(), let content else { return }
        if equiv == "refresh", refresh == nil {
            refresh = content
        } else if equiv == "content-type", declaredCharset == nil,
                  let range = content.range(of: "charset=", options: .caseInsensitive) {
            declaredCharset = content[range.upperBound...]
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"' ;")).lowercased()
        }
    }

    /// Reads a `<script>`: one that runs is a script source or an inline script's shape.
    mutating func readScript(type: String?, source: String?, text: () -> String) {
        guard HTMLDocument.Scripts.runs(type: type) else { return }
        if let source {
            scriptSources.append(source)
            embeds.append(Embed(element: "script", attribute: "src", value: source, alt: ""))
        } else {
            inlineScripts.insert(ScriptShape.of(text()).hashValue)
        }
    }

    /// The title from a `<title>`'s text, when the document has none yet.
    mutating func readTitle(_ text: String) {
        if title == nil { title = text.collapsingASCIIWhitespace }
    }

    /// The document at `url`, its URLs resolved.
    func document(url: URL) -> HTMLDocument {
        var document = HTMLDocument(baseURL: url)
        if let baseHref, let base = DocumentURL.resolve(baseHref, against: url).flatMap(URL.init(string:)) {
            document.baseURL = base
        }
        let resolver = DocumentURL.Resolver(base: document.baseURL)
        document.links = (anchors + frames).map { link in
            HTMLDocument.Link(url: resolver.resolve(link.value) ?? link.value, href: link.value, text: link.text,
                              rel: link.rel, element: link.element)
        }
        document.embedded = embeds.flatMap { embed in
            EmbeddedResource.resources(element: embed.element, attribute: embed.attribute, value: embed.value,
                                       text: embed.alt, resolver: resolver)
        }
        var seen: Set<String> = []
        document.anchors = (ids + names).filter { seen.insert($0).inserted }
        document.title = title
        document.refresh = refresh
        document.declaredCharset = declaredCharset
        document.scripts.sources = Set(scriptSources.map { resolver.resolve($0) ?? $0 }).sorted()
        document.scripts.inline = inlineScripts.sorted()
        document.scripts.handlers = handlers
        return document
    }
}

extension String {
    /// The string with ASCII white space stripped from both ends and each run of it made one space.
    var collapsingASCIIWhitespace: String {
        split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" || $0 == "\r\n" })
            .joined(separator: " ")
    }
}
