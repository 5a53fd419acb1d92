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

    /// `bytes`, UTF-8, parsed: read from its tokens when its tree is their
    /// plain nesting (`HTMLTokenReader`), else from Gumbo's tree.
    private static func parseUTF8(_ bytes: [UInt8], url: URL) throws(HTMLParseError) -> HTMLDocument {
        if let document = bytes.withUnsafeBufferPointer({ HTMLTokenReader.read($0, url: url) }) { return document }
        return try parseTree(bytes, url: url)
    }

    /// `bytes`, UTF-8, read from Gumbo's tree, whatever the tokens could
    /// say: what `HTMLTokenReader`'s answers are compared with.
    package static func parseTree(_ bytes: [UInt8], url: URL) throws(HTMLParseError) -> HTMLDocument {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count) }
        let withinLimit = bytes.withUnsafeBufferPointer { NestingScan.isWithinLimit($0) }
        guard withinLimit else { throw .tooDeep }
        return readTree(bytes, url: url)
    }

    private static func readTree(_ bytes: [UInt8], url: URL) -> HTMLDocument {
        bytes.withUnsafeBufferPointer { buffer in
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
    private var facts = DocumentFacts()
    private let url: URL
    /// The UTF-8 bytes parsed, which Gumbo's source positions count in.
    private let source: UnsafeRawBufferPointer
    /// Where the text of the last `<noscript>` ends, in `source`.
    private var noscriptEnd = 0

    init(url: URL, source: UnsafeRawBufferPointer) {
        self.url = url
        self.source = source
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
        return facts.document(url: url)
    }

    /// Where a raw text element's text that starts at `start` ends in
    /// `source`: at its first end tag (`</tag` then white space, `/` or `>`,
    /// in any case), or at the end.
    static func endOfText(in source: UnsafeRawBufferPointer, from start: Int, tag: String) -> Int {
        HTMLBytes.endOfRawText(named: Array(tag.utf8), in: source.assumingMemoryBound(to: UInt8.self), from: start)
            ?? source.count
    }

    private mutating func visit(_ node: UnsafeMutablePointer<GumboNode>, _ element: GumboElement) {
        var attributes = element.attributes
        // One pass over the attributes for what every element may have: an id, an event handler.
        for index in 0..<Int(attributes.length) {
            let attribute = attributes.data[index]!.assumingMemoryBound(to: GumboAttribute.self)
            let name = attribute.pointee.name!
            if name[0] == CChar(UInt8(ascii: "i")), name[1] == CChar(UInt8(ascii: "d")), name[2] == 0 {
                facts.ids.append(String(cString: attribute.pointee.value))  // the tokenizer lower-cases names and drops repeats
            } else if element.tag_namespace == GUMBO_NAMESPACE_HTML, name[0] == CChar(UInt8(ascii: "o")),
                      name[1] == CChar(UInt8(ascii: "n")) {
                facts.handlers = true
            }
        }
        switch (element.tag, element.tag_namespace) {
        case (GUMBO_TAG_A, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_AREA, GUMBO_NAMESPACE_HTML):
            if element.tag == GUMBO_TAG_A, let name = attributes.attribute("name") { facts.names.append(name) }
            if let href = attributes.attribute("href") { facts.anchors.append(link(node, value: href)) }
        case (GUMBO_TAG_A, _):
            if let name = attributes.attribute("name") { facts.names.append(name) }
        case (GUMBO_TAG_IFRAME, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_FRAME, GUMBO_NAMESPACE_HTML):
            if let source = attributes.attribute("src") {
                facts.frames.append(link(node, value: source))
                if source.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("javascript:") {
                    facts.handlers = true
                }
            }
        case (GUMBO_TAG_BASE, GUMBO_NAMESPACE_HTML):
            if facts.baseHref == nil, let href = attributes.attribute("href") { facts.baseHref = href }
        case (GUMBO_TAG_TITLE, GUMBO_NAMESPACE_HTML):
            facts.readTitle(Self.childText(of: element))
        case (GUMBO_TAG_META, GUMBO_NAMESPACE_HTML):
            facts.readMeta(charset: attributes.attribute("charset"), httpEquiv: attributes.attribute("http-equiv"),
                           content: attributes.attribute("content"))
        case (GUMBO_TAG_SCRIPT, _):
            facts.readScript(type: attributes.attribute("type"), source: attributes.attribute("src")) {
                Self.childText(of: element)
            }
        case (GUMBO_TAG_IMG, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_SOURCE, GUMBO_NAMESPACE_HTML):
            let name = element.tag == GUMBO_TAG_IMG ? "img" : "source"
            let alt = element.tag == GUMBO_TAG_IMG ? attributes.attribute("alt") ?? "" : ""
            if let source = attributes.attribute("src") {
                facts.embeds.append(.init(element: name, attribute: "src", value: source, alt: alt))
            }
            if let set = attributes.attribute("srcset") {
                facts.embeds.append(.init(element: name, attribute: "srcset", value: set, alt: alt))
            }
        case (GUMBO_TAG_VIDEO, GUMBO_NAMESPACE_HTML), (GUMBO_TAG_AUDIO, GUMBO_NAMESPACE_HTML):
            if let source = attributes.attribute("src") {
                facts.embeds.append(.init(element: element.tag == GUMBO_TAG_VIDEO ? "video" : "audio", attribute: "src",
                                          value: source, alt: ""))
            }
        case (GUMBO_TAG_LINK, GUMBO_NAMESPACE_HTML):
            if let href = attributes.attribute("href"), EmbeddedResource.isResourceLink(rel: attributes.attribute("rel") ?? "") {
                facts.embeds.append(.init(element: "link", attribute: "href", value: href, alt: ""))
            }
        default:
            break
        }
    }

    private func link(_ node: UnsafeMutablePointer<GumboNode>, value: String) -> DocumentFacts.LinkElement {
        let element = node.pointee.v.element
        var attributes = element.attributes
        return DocumentFacts.LinkElement(value: value, text: LinkText.of(node), rel: attributes.attribute("rel") ?? "",
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
