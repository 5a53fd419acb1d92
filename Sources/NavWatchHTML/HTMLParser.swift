import CGumbo
import Foundation

/// Why a document was not parsed: the crawl renders such a page instead.
package enum HTMLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Larger than `HTMLParser.maximumBytes`.
    case tooLarge(bytes: Int)
    /// Nested deeper than `NestingScan.limit` allows.
    case tooDeep

    package var description: String {
        switch self {
        case .tooLarge(let bytes): return "\(bytes) bytes, more than the parser takes (\(HTMLParser.maximumBytes))"
        case .tooDeep: return "nested deeper than \(NestingScan.limit) elements"
        }
    }
}

/// Parses an HTML document with Gumbo (an HTML5 tree builder: the same
/// tree a browser builds from the same bytes, tag soup included) and reads
/// its `HTMLDocument` with the facts script's rules.
///
/// - Input in any encoding `CharacterEncoding` reads is converted to UTF-8
///   first; a byte sequence the encoding does not allow is read as U+FFFD
///   (as a browser does).
/// - Bounded: at most `maximumBytes`, nested at most `NestingScan.limit`
///   deep; past either, `HTMLParseError` and no parse. Within them the
///   time grows about linearly with the size (`Scripts/fuzz` checks the time per byte).
/// - `parse` runs on a thread of its own with a large stack (Gumbo recurses
///   over the tree): it never blocks the caller's executor.
package enum HTMLParser {
    /// The largest document parsed: 8 MiB.
    package static let maximumBytes = 8 << 20
    /// The stack of the parsing thread.
    static let stackSize = 16 << 20

    /// The document in `bytes`, served at `url` (after redirects) with the
    /// `Content-Type` charset `charset`, parsed on a thread of its own.
    package static func parse(_ bytes: [UInt8], url: URL, charset: String? = nil) async throws(HTMLParseError) -> HTMLDocument {
        let result: Result<HTMLDocument, HTMLParseError> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(HTMLParseError) in
                try parseNow(bytes, url: url, charset: charset)
            }) }
            thread.stackSize = stackSize
            thread.start()
        }
        return try result.get()
    }

    /// `parse` on the calling thread, which needs a stack of `stackSize`
    /// for the deepest documents allowed (the fuzz tests call it on such a thread).
    ///
    /// The bytes are read in the encoding `CharacterEncoding` finds (a
    /// byte-order mark, `charset`, the document's own declaration), converted
    /// to UTF-8 first; `HTMLDocument.encoding` says which, or is nil when the
    /// encoding named is one navwatch cannot read (the bytes are then read as UTF-8).
    package static func parseNow(_ bytes: [UInt8], url: URL, charset: String? = nil) throws(HTMLParseError) -> HTMLDocument {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count) }
        if let (encoding, length) = CharacterEncoding.byteOrderMark(of: bytes) {
            return try parse(bytes[length...], as: encoding, url: url)
        }
        if let charset {
            guard let encoding = CharacterEncoding(label: charset) else {
                var document = try parseUTF8(bytes, url: url)
                document.encoding = nil
                return document
            }
            return encoding == .utf8 ? try parseUTF8(bytes, url: url) : try parse(bytes[...], as: encoding, url: url)
        }
        let document = try parseUTF8(bytes, url: url)
        guard let declared = document.declaredCharset else { return document }
        guard let encoding = CharacterEncoding(label: declared) else {
            var undecoded = document
            undecoded.encoding = nil
            return undecoded
        }
        // A document that says it is UTF-16 in ASCII bytes is not: it is read as UTF-8.
        guard encoding != .utf8, !encoding.isUTF16 else { return document }
        return try parse(bytes[...], as: encoding, url: url)
    }

    /// `bytes` in `encoding`, converted to UTF-8 and parsed.
    private static func parse(_ bytes: ArraySlice<UInt8>, as encoding: CharacterEncoding,
                              url: URL) throws(HTMLParseError) -> HTMLDocument {
        guard let converted = encoding.utf8Bytes(bytes) else {
            var document = try parseUTF8(Array(bytes), url: url)
            document.encoding = nil
            return document
        }
        guard converted.count <= maximumBytes else { throw .tooLarge(bytes: converted.count) }
        var document = try parseUTF8(converted, url: url)
        document.encoding = encoding.label
        return document
    }

    /// `bytes`, UTF-8, parsed.
    private static func parseUTF8(_ bytes: [UInt8], url: URL) throws(HTMLParseError) -> HTMLDocument {
        let withinLimit = bytes.withUnsafeBufferPointer { NestingScan.isWithinLimit($0) }
        guard withinLimit else { throw .tooDeep }
        return bytes.withUnsafeBufferPointer { buffer in
            var options = kGumboDefaultOptions
            options.max_errors = 0  // each error copies the stack of open elements: quadratic memory
            let arena = buffer.count <= ParseArena.largestDocument ? ParseArena() : nil
            arena?.install(in: &options)
            let empty: StaticString = ""
            let start = UnsafeRawPointer(buffer.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self)
            let output = gumbo_parse_with_options(&options, start, buffer.count)!
            return withExtendedLifetime(arena) {
                defer { if arena == nil { gumbo_destroy_output(&options, output) } }  // an arena frees it all at once
                return DocumentReader(url: url, source: UnsafeRawBufferPointer(buffer)).read(output.pointee.document)
            }
        }
    }
}

/// Walks Gumbo's tree once, without recursion, reading what `HTMLDocument` holds.
private struct DocumentReader {
    private var document: HTMLDocument
    /// Link elements in document order, and frames; their URLs resolve once
    /// the base URL is known (a `<base>` may come after a link).
    private var anchors: [UnsafeMutablePointer<GumboNode>] = []
    private var frames: [UnsafeMutablePointer<GumboNode>] = []
    private var ids: [String] = [], names: [String] = []
    private var baseHref: String?
    private var sources: Set<String> = [], inline: Set<Int> = []
    private var scriptSources: [String] = []
    /// Elements with a resource's URL, in document order, each with the attribute.
    private var embeds: [(node: UnsafeMutablePointer<GumboNode>, attribute: String)] = []
    private let url: URL
    /// The UTF-8 bytes parsed, which Gumbo's source positions count in.
    private let source: UnsafeRawBufferPointer
    /// Where the text of the last `<noscript>` ends, in `source`.
    private var noscriptEnd = 0

    init(url: URL, source: UnsafeRawBufferPointer) {
        self.url = url
        self.source = source
        document = HTMLDocument(baseURL: url)
    }

    consuming func read(_ root: UnsafeMutablePointer<GumboNode>) -> HTMLDocument {
        var stack: [UnsafeMutablePointer<GumboNode>] = [root]
        while let node = stack.popLast() {
            let children: GumboVector
            switch node.pointee.type {
            case GUMBO_NODE_DOCUMENT:
                children = node.pointee.v.document.children
            case GUMBO_NODE_ELEMENT:
                let element = node.pointee.v.element
                // A `<noscript>` is text where scripts run, up to the first `</noscript`. Gumbo parses
                // as if they did not, and moves elements that `<head>`'s noscript may not hold out of
                // it into the body: elements written in that text are no part of the document.
                let written = node.pointee.parse_flags.rawValue & GUMBO_INSERTION_BY_PARSER.rawValue == 0
                if written && Int(element.start_pos.offset) < noscriptEnd { continue }
                visit(node, element)
                if element.tag == GUMBO_TAG_NOSCRIPT && element.tag_namespace == GUMBO_NAMESPACE_HTML {
                    noscriptEnd = Self.endOfText(in: source, from: Int(element.start_pos.offset) + 1, tag: "noscript")
                    continue
                }
                children = element.children
            case GUMBO_NODE_TEMPLATE:
                visit(node, node.pointee.v.element)
                continue  // a template's content is no part of the document
            default:
                continue  // text and comments
            }
            for index in stride(from: Int(children.length) - 1, through: 0, by: -1) {
                stack.append(children.data[index]!.assumingMemoryBound(to: GumboNode.self))
            }
        }
        finish()
        return document
    }

    /// Where a raw text element's text that starts at `start` ends in
    /// `source`: at its first end tag (`</tag` then white space, `/` or `>`,
    /// in any case), or at the end.
    static func endOfText(in source: UnsafeRawBufferPointer, from start: Int, tag: String) -> Int {
        let name = Array(tag.utf8)
        var index = start
        while index + name.count + 2 < source.count {
            if source[index] == UInt8(ascii: "<"), source[index + 1] == UInt8(ascii: "/"),
               name.indices.allSatisfy({ source[index + 2 + $0] | 0x20 == name[$0] }),
               [0x09, 0x0A, 0x0C, 0x0D, 0x20, UInt8(ascii: "/"), UInt8(ascii: ">")].contains(source[index + 2 + name.count]) {
                return index
            }
            index += 1
        }
        return source.count
    }

    private mutating func visit(_ node: UnsafeMutablePointer<GumboNode>, _ element: GumboElement) {
        var attributes = element.attributes
        // One pass over the attributes for what every element may have: an id, an event handler.
        for index in 0..<Int(attributes.length) {
            let attribute = attributes.data[index]!.assumingMemoryBound(to: GumboAttribute.self)
            let name = attribute.pointee.name!
            if name[0] == CChar(UInt8(ascii: "i")), name[1] == CChar(UInt8(ascii: "d")), name[2] == 0 {
                ids.append(String(cString: attribute.pointee.value))  // the tokenizer lower-cases names and drops repeats
            } else if element.tag_namespace == GUMBO_NAMESPACE_HTML, name[0] == CChar(UInt8(ascii: "o")),
                      name[1] == CChar(UInt8(ascii: "n")) {
                document.scripts.handlers = true
            }
        }
        switch (element.tag, element.tag_namespace) {
        case (GUMBO_TAG_A, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_AREA, GUMBO_NAMESPACE_HTML):
            if element.tag == GUMBO_TAG_A, let name = attributes.attribute("name") { names.append(name) }
            if attributes.attribute("href") != nil { anchors.append(node) }
        case (GUMBO_TAG_A, _):
            if let name = attributes.attribute("name") { names.append(name) }
        case (GUMBO_TAG_IFRAME, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_FRAME, GUMBO_NAMESPACE_HTML):
            if let source = attributes.attribute("src") {
                frames.append(node)
                if source.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("javascript:") {
                    document.scripts.handlers = true
                }
            }
        case (GUMBO_TAG_BASE, GUMBO_NAMESPACE_HTML):
            if baseHref == nil, let href = attributes.attribute("href") { baseHref = href }
        case (GUMBO_TAG_TITLE, GUMBO_NAMESPACE_HTML):
            if document.title == nil { document.title = Self.childText(of: element).collapsingASCIIWhitespace }
        case (GUMBO_TAG_META, GUMBO_NAMESPACE_HTML):
            readMeta(&attributes)
        case (GUMBO_TAG_SCRIPT, _):
            guard HTMLDocument.Scripts.runs(type: attributes.attribute("type")) else { break }
            if let source = attributes.attribute("src") {
                scriptSources.append(source)
                embeds.append((node, "src"))
            } else {
                inline.insert(ScriptShape.of(Self.childText(of: element)).hashValue)
            }
        case (GUMBO_TAG_IMG, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_SOURCE, GUMBO_NAMESPACE_HTML):
            if attributes.attribute("src") != nil { embeds.append((node, "src")) }
            if attributes.attribute("srcset") != nil { embeds.append((node, "srcset")) }
        case (GUMBO_TAG_VIDEO, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_AUDIO, GUMBO_NAMESPACE_HTML):
            if attributes.attribute("src") != nil { embeds.append((node, "src")) }
        case (GUMBO_TAG_LINK, GUMBO_NAMESPACE_HTML):
            if attributes.attribute("href") != nil, EmbeddedResource.isResourceLink(rel: attributes.attribute("rel") ?? "") {
                embeds.append((node, "href"))
            }
        default:
            break
        }
    }

    private mutating func readMeta(_ attributes: inout GumboVector) {
        if document.declaredCharset == nil, let charset = attributes.attribute("charset") {
            document.declaredCharset = charset.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let equiv = attributes.attribute("http-equiv")?.lowercased(),
              let content = attributes.attribute("content") else { return }
        if equiv == "refresh", document.refresh == nil {
            document.refresh = content
        } else if equiv == "content-type", document.declaredCharset == nil,
                  let range = content.range(of: "charset=", options: .caseInsensitive) {
            document.declaredCharset = content[range.upperBound...]
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"' ;")).lowercased()
        }
    }

    private mutating func finish() {
        if let baseHref, let base = DocumentURL.resolve(baseHref, against: url).flatMap(URL.init(string:)) {
            document.baseURL = base
        }
        let resolver = DocumentURL.Resolver(base: document.baseURL)
        document.links = anchors.map { link($0, attribute: "href", resolver) } + frames.map { link($0, attribute: "src", resolver) }
        document.embedded = embeds.flatMap { node, attribute in
            let element = node.pointee.v.element
            var attributes = element.attributes
            let name = String(cString: gumbo_normalized_tagname(element.tag))
            return EmbeddedResource.resources(element: name, attribute: attribute, value: attributes.attribute(attribute) ?? "",
                                              text: name == "img" ? attributes.attribute("alt") ?? "" : "", resolver: resolver)
        }
        var seen: Set<String> = []
        document.anchors = (ids + names).filter { seen.insert($0).inserted }
        document.scripts.sources = Set(scriptSources.map { resolver.resolve($0) ?? $0 }).sorted()
        document.scripts.inline = inline.sorted()
    }

    private func link(_ node: UnsafeMutablePointer<GumboNode>, attribute name: String,
                      _ resolver: DocumentURL.Resolver) -> HTMLDocument.Link {
        let element = node.pointee.v.element
        var attributes = element.attributes
        let value = attributes.attribute(name) ?? ""
        return HTMLDocument.Link(url: resolver.resolve(value) ?? value, href: value,
                                 text: LinkText.of(node), rel: attributes.attribute("rel") ?? "",
                                 element: String(cString: gumbo_normalized_tagname(element.tag)))
    }

    /// The text of an element's own text children (a `<title>`'s, a `<script>`'s).
    private static func childText(of element: GumboElement) -> String {
        var text = ""
        for index in 0..<Int(element.children.length) {
            let child = element.children.data[index]!.assumingMemoryBound(to: GumboNode.self)
            switch child.pointee.type {
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE, GUMBO_NODE_CDATA:
                text += String(cString: child.pointee.v.text.text)
            default:
                break
            }
        }
        return text
    }
}

extension String {
    /// The string with ASCII white space stripped from both ends and each run of it made one space.
    fileprivate var collapsingASCIIWhitespace: String {
        split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" || $0 == "\r\n" })
            .joined(separator: " ")
    }
}
