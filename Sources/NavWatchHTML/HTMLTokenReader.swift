import CGumbo
import Foundation

/// Reads an `HTMLDocument` straight from a document's tokens, without
/// building its tree, for the documents whose tree is the plain nesting of
/// their tags; for any other it answers nil, and `HTMLParser` reads the
/// document with Gumbo's tree builder instead.
///
/// - When it answers, the answer is the one `HTMLParser`'s reading of Gumbo's
///   tree gives for the same bytes (`HTMLTokenReaderFuzzTests` compares them).
/// - It follows the tokenizer of the HTML standard (tags, attributes,
///   character references, comments, raw text) and the part of the tree
///   builder that keeps a stack of open elements (implied end tags, `<p>`,
///   list items and headings closed by what follows, end tags that close
///   what is open above their element, tables with their sections, rows and
///   cells). It gives up (nil) where the tree builder would move an element
///   or copy one: foreign content (`<svg>`, `<math>`), foster parenting in
///   tables, a formatting element (`<a>`, `<b>`, ...) closed by another
///   element's tag, a link inside a link, a second `<html>`, `<head>` or
///   `<body>` with attributes, `<select>`, frames, a `<noscript>` with
///   elements other than empty ones, a comment or reference it does not
///   read the way the standard does, a NUL byte, text that is not UTF-8.
/// - Linear in the document's size: past `maximumDepth` open elements it
///   gives up (the tree builder's path, which `NestingScan` bounds, decides),
///   so that its looks down the stack of open elements stay short.
package enum HTMLTokenReader {
    /// The most elements open at once in a document this reader reads (generated pages nest a few dozen deep).
    package static let maximumDepth = 256

    /// The document in `bytes` (UTF-8), served at `url`, or nil when its tree is not the nesting of its tags.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, url: URL) -> HTMLDocument? {
        guard bytes.count > 0, let base = bytes.baseAddress else { return HTMLDocument(baseURL: url) }
        guard memchr(base, 0, bytes.count) == nil else { return nil }
        var reader = TokenWalk(bytes: bytes)
        guard reader.run() else { return nil }
        reader.closeLink()
        return reader.facts.document(url: url)
    }
}

/// A set of Gumbo's tags, as bits.
private struct TagSet {
    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)

    init(_ tags: [GumboTag]) {
        for tag in tags {
            let value = Int(tag.rawValue)
            switch value >> 6 {
            case 0: words.0 |= 1 << UInt64(value & 63)
            case 1: words.1 |= 1 << UInt64(value & 63)
            default: words.2 |= 1 << UInt64(value & 63)
            }
        }
    }

    func contains(_ tag: GumboTag) -> Bool {
        let value = Int(tag.rawValue)
        let word: UInt64
        switch value >> 6 {
        case 0: word = words.0
        case 1: word = words.1
        case 2: word = words.2
        default: return false
        }
        return word & (1 << UInt64(value & 63)) != 0
    }
}

/// Gumbo's groups of tags, as its tree builder (0.10.1) has them.
private enum Tags {
    static let special = TagSet([
        GUMBO_TAG_ADDRESS, GUMBO_TAG_APPLET, GUMBO_TAG_AREA, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BASE,
        GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BODY, GUMBO_TAG_BR, GUMBO_TAG_BUTTON,
        GUMBO_TAG_CAPTION, GUMBO_TAG_CENTER, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_MENUITEM, GUMBO_TAG_DD,
        GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_DT, GUMBO_TAG_EMBED, GUMBO_TAG_FIELDSET,
        GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE, GUMBO_TAG_FOOTER, GUMBO_TAG_FORM, GUMBO_TAG_FRAME, GUMBO_TAG_FRAMESET,
        GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6, GUMBO_TAG_HEAD,
        GUMBO_TAG_HEADER, GUMBO_TAG_HGROUP, GUMBO_TAG_HR, GUMBO_TAG_HTML, GUMBO_TAG_IFRAME, GUMBO_TAG_IMG,
        GUMBO_TAG_INPUT, GUMBO_TAG_ISINDEX, GUMBO_TAG_LI, GUMBO_TAG_LINK, GUMBO_TAG_LISTING, GUMBO_TAG_MARQUEE,
        GUMBO_TAG_MENU, GUMBO_TAG_META, GUMBO_TAG_NAV, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES, GUMBO_TAG_NOSCRIPT,
        GUMBO_TAG_OBJECT, GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_PARAM, GUMBO_TAG_PLAINTEXT, GUMBO_TAG_PRE,
        GUMBO_TAG_SCRIPT, GUMBO_TAG_SECTION, GUMBO_TAG_SELECT, GUMBO_TAG_STYLE, GUMBO_TAG_SUMMARY, GUMBO_TAG_TABLE,
        GUMBO_TAG_TBODY, GUMBO_TAG_TD, GUMBO_TAG_TEMPLATE, GUMBO_TAG_TEXTAREA, GUMBO_TAG_TFOOT, GUMBO_TAG_TH,
        GUMBO_TAG_THEAD, GUMBO_TAG_TITLE, GUMBO_TAG_TR, GUMBO_TAG_UL, GUMBO_TAG_WBR, GUMBO_TAG_XMP,
    ])
    /// Start tags that close an open `<p>` first.
    static let blockStarts = TagSet([
        GUMBO_TAG_ADDRESS, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_CENTER,
        GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_FIELDSET, GUMBO_TAG_FIGCAPTION,
        GUMBO_TAG_FIGURE, GUMBO_TAG_FOOTER, GUMBO_TAG_HEADER, GUMBO_TAG_HGROUP, GUMBO_TAG_MENU, GUMBO_TAG_MAIN,
        GUMBO_TAG_NAV, GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_SECTION, GUMBO_TAG_SUMMARY, GUMBO_TAG_UL,
    ])
    /// End tags that close their element when it is in scope, whatever is open above it.
    static let blockEnds = TagSet([
        GUMBO_TAG_ADDRESS, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BUTTON,
        GUMBO_TAG_CENTER, GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_FIELDSET,
        GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE, GUMBO_TAG_FOOTER, GUMBO_TAG_HEADER, GUMBO_TAG_HGROUP,
        GUMBO_TAG_LISTING, GUMBO_TAG_MAIN, GUMBO_TAG_MENU, GUMBO_TAG_NAV, GUMBO_TAG_OL, GUMBO_TAG_PRE,
        GUMBO_TAG_SECTION, GUMBO_TAG_SUMMARY, GUMBO_TAG_UL,
    ])
    static let formatting = TagSet([
        GUMBO_TAG_A, GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_CODE, GUMBO_TAG_EM, GUMBO_TAG_FONT, GUMBO_TAG_I,
        GUMBO_TAG_S, GUMBO_TAG_SMALL, GUMBO_TAG_STRIKE, GUMBO_TAG_STRONG, GUMBO_TAG_TT, GUMBO_TAG_U,
    ])
    static let impliedEnd = TagSet([
        GUMBO_TAG_DD, GUMBO_TAG_DT, GUMBO_TAG_LI, GUMBO_TAG_OPTION, GUMBO_TAG_OPTGROUP, GUMBO_TAG_P, GUMBO_TAG_RP,
        GUMBO_TAG_RB, GUMBO_TAG_RT, GUMBO_TAG_RTC,
    ])
    static let headings = TagSet([GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6])
    /// Elements without content in the body.
    static let void = TagSet([
        GUMBO_TAG_AREA, GUMBO_TAG_BR, GUMBO_TAG_EMBED, GUMBO_TAG_IMG, GUMBO_TAG_WBR, GUMBO_TAG_INPUT,
        GUMBO_TAG_PARAM, GUMBO_TAG_SOURCE, GUMBO_TAG_TRACK, GUMBO_TAG_BASE, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND,
        GUMBO_TAG_LINK, GUMBO_TAG_META,
    ])
    /// The start tags of the head, which do not start the body.
    static let head = TagSet([
        GUMBO_TAG_HTML, GUMBO_TAG_HEAD, GUMBO_TAG_BASE, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_LINK,
        GUMBO_TAG_META, GUMBO_TAG_NOFRAMES, GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_TEMPLATE, GUMBO_TAG_TITLE,
        GUMBO_TAG_NOSCRIPT,
    ])
    /// Tags whose handling this reader leaves to the tree builder.
    static let unsupported = TagSet([
        GUMBO_TAG_MATH, GUMBO_TAG_PLAINTEXT, GUMBO_TAG_SELECT, GUMBO_TAG_FRAMESET, GUMBO_TAG_FRAME,
        GUMBO_TAG_IMAGE, GUMBO_TAG_ISINDEX, GUMBO_TAG_NOBR, GUMBO_TAG_APPLET, GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT,
        GUMBO_TAG_MENUITEM, GUMBO_TAG_KEYGEN, GUMBO_TAG_RB, GUMBO_TAG_RP, GUMBO_TAG_RT, GUMBO_TAG_RTC,
        GUMBO_TAG_CAPTION,
    ])
    /// Elements whose current node puts the tree builder in a table's modes.
    /// HTML start tags that end an `<svg>` open (font only with some attributes).
    static let breakOut = TagSet([
        GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BODY, GUMBO_TAG_BR, GUMBO_TAG_CENTER,
        GUMBO_TAG_CODE, GUMBO_TAG_DD, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_DT, GUMBO_TAG_EM, GUMBO_TAG_EMBED,
        GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6, GUMBO_TAG_HEAD,
        GUMBO_TAG_HR, GUMBO_TAG_I, GUMBO_TAG_IMG, GUMBO_TAG_LI, GUMBO_TAG_LISTING, GUMBO_TAG_MENU, GUMBO_TAG_META,
        GUMBO_TAG_NOBR, GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_PRE, GUMBO_TAG_RUBY, GUMBO_TAG_S, GUMBO_TAG_SMALL,
        GUMBO_TAG_SPAN, GUMBO_TAG_STRONG, GUMBO_TAG_STRIKE, GUMBO_TAG_SUB, GUMBO_TAG_SUP, GUMBO_TAG_TABLE,
        GUMBO_TAG_TT, GUMBO_TAG_U, GUMBO_TAG_UL, GUMBO_TAG_VAR, GUMBO_TAG_FONT,
    ])
    /// Start tags inside a `<template>` that this reader leaves to the tree builder.
    static let unreadInTemplate = TagSet([
        GUMBO_TAG_SVG, GUMBO_TAG_MATH, GUMBO_TAG_PLAINTEXT, GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_CAPTION,
        GUMBO_TAG_OBJECT, GUMBO_TAG_APPLET, GUMBO_TAG_MARQUEE, GUMBO_TAG_SELECT,
    ])
    static let tableContext = TagSet([GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT, GUMBO_TAG_TR])
    static let sections = TagSet([GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT])
    static let cells = TagSet([GUMBO_TAG_TD, GUMBO_TAG_TH])
    static let tableStructure = TagSet([
        GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_TR, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT,
        GUMBO_TAG_COLGROUP, GUMBO_TAG_COL, GUMBO_TAG_CAPTION,
    ])
    static let scope = TagSet([
        GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH,
        GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE,
    ])
    static let listScope = TagSet([
        GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH,
        GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE, GUMBO_TAG_OL, GUMBO_TAG_UL,
    ])
    static let buttonScope = TagSet([
        GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH,
        GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE, GUMBO_TAG_BUTTON,
    ])
    static let tableScope = TagSet([GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE])
    /// Elements a `<noscript>` may hold for this reader: empty ones, which do not change what is open.
    static let noscriptBody = TagSet([
        GUMBO_TAG_IMG, GUMBO_TAG_BR, GUMBO_TAG_WBR, GUMBO_TAG_INPUT, GUMBO_TAG_SOURCE, GUMBO_TAG_TRACK,
        GUMBO_TAG_EMBED, GUMBO_TAG_PARAM, GUMBO_TAG_AREA, GUMBO_TAG_LINK, GUMBO_TAG_META,
    ])
    static let noscriptHead = TagSet([GUMBO_TAG_LINK, GUMBO_TAG_META])
}

/// One tag as the tokenizer read it.
private struct Tag {
    struct Attribute {
        var name: Range<Int>
        /// Where the value is written (without its quotes); nil for an attribute without one.
        var value: Range<Int>?
    }

    var tag: GumboTag
    /// Where its name is written.
    var name: Range<Int>
    var selfClosing = false
    var attributes: [Attribute] = []
}

/// One walk over a document's tokens. Every step answers false where the
/// reader gives up.
private struct TokenWalk {
    let bytes: UnsafeBufferPointer<UInt8>
    var facts = DocumentFacts()
    private var position = 0
    /// The open elements, `<html>` first; raw text and empty elements are never on it.
    private var stack: [GumboTag] = [GUMBO_TAG_HTML]
    private var bodyStarted = false, headStarted = false, sawStructure = false
    /// For formatting elements on `stack`, at the same index: their attributes, sorted (`signature(of:)`).
    private var signatures: [String] = []
    /// Whether `</head>` came before the body: a `<noscript>` then starts the body.
    private var afterHead = false
    private var formOpen = false
    /// How many `<template>`s are open: inside one, nothing is read.
    private var templateDepth = 0
    /// A `<pre>`, `<listing>` or `<textarea>` drops a line feed right after its start tag.
    private var dropLineFeed = false
    private var link: OpenLink?
    /// The open elements of an `<svg>` (its own first), by their names in lower case.
    private var foreign: [[UInt8]] = []

    /// The `<a href>` open, whose text is being read.
    private struct OpenLink {
        /// Its place in `facts.anchors`, and in `stack`.
        var index: Int, depth: Int
        var text = ""
        var nonSpace = 0, nodes = 0
        var imageAlt: String?
        var ariaLabel: String?, title: String?
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: The tokenizer

    mutating func run() -> Bool {
        let count = bytes.count
        while position < count {
            let start = position
            let less = find(UInt8(ascii: "<"), from: start) ?? count
            if less > start {
                guard text(start..<less) else { return false }
            }
            guard less < count else { break }
            position = less
            guard markup(), stack.count <= HTMLTokenReader.maximumDepth else { return false }
        }
        return true
    }

    /// The markup at `position`, which is a `<`.
    private mutating func markup() -> Bool {
        let start = position
        guard start + 1 < bytes.count else {
            position += 1
            return text(start..<start + 1)
        }
        let next = bytes[start + 1]
        if next == UInt8(ascii: "!") { return declaration() }
        if next == UInt8(ascii: "?") {
            // A bogus comment, to the first `>`.
            guard let end = find(UInt8(ascii: ">"), from: start + 2) else { return false }
            position = end + 1
            return comment()
        }
        if next == UInt8(ascii: "/") {
            guard start + 2 < bytes.count, HTMLBytes.isLetter(bytes[start + 2]) else { return false }
            // An end tag with attributes is an error Gumbo does not always read as the standard does.
            guard let tag = readTag(nameStart: start + 2), tag.attributes.isEmpty else { return false }
            dropLineFeed = false
            sawStructure = true
            return endTag(tag)
        }
        guard HTMLBytes.isLetter(next) else {
            position += 1
            return text(start..<start + 1)
        }
        guard var tag = readTag(nameStart: start + 1) else { return false }
        dropLineFeed = false
        return startTag(&tag)
    }

    /// `<!--...-->` or `<!DOCTYPE ...>` at `position`.
    private mutating func declaration() -> Bool {
        let start = position
        dropLineFeed = false
        if matches("<!--", at: start) {
            let body = start + 4
            if body < bytes.count, bytes[body] == UInt8(ascii: ">") { return false }
            if matches("->", at: body) { return false }
            guard let end = find("-->", from: body) else { return false }
            if find("--!", from: body, before: end) != nil { return false }
            position = end + 3
            return comment()
        }
        guard matches("<!doctype", at: start, ignoringCase: true),
              let end = find(UInt8(ascii: ">"), from: start + 9) else { return false }
        position = end + 1
        return true
    }

    /// A comment: a node of the link's text, if one is open.
    private mutating func comment() -> Bool {
        dropLineFeed = false
        return countNode()
    }

    /// Reads the tag whose name starts at `nameStart`, to the `>` that ends
    /// it; `position` goes past it. Nil at the end of the input inside the tag.
    private mutating func readTag(nameStart: Int) -> Tag? {
        let count = bytes.count
        var index = nameStart
        while index < count, !HTMLBytes.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: ">") {
            index += 1
        }
        let tag = UnsafeBufferPointer(rebasing: bytes[nameStart..<index]).withMemoryRebound(to: CChar.self) {
            gumbo_tagn_enum($0.baseAddress, UInt32($0.count))
        }
        var result = Tag(tag: tag, name: nameStart..<index)
        var slash = false
        while index < count {
            let byte = bytes[index]
            if HTMLBytes.isSpace(byte) || byte == UInt8(ascii: "/") {
                slash = byte == UInt8(ascii: "/")
                index += 1
                continue
            }
            if byte == UInt8(ascii: ">") {
                result.selfClosing = slash
                position = index + 1
                return result
            }
            slash = false
            // An attribute's name: a first `=` is part of it.
            let nameStart = index
            index += 1
            while index < count, !HTMLBytes.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "/"),
                  bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "=") {
                index += 1
            }
            let name = nameStart..<index
            while index < count, HTMLBytes.isSpace(bytes[index]) { index += 1 }
            guard index < count else { return nil }
            var value: Range<Int>?
            if bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < count, HTMLBytes.isSpace(bytes[index]) { index += 1 }
                guard index < count else { return nil }
                let quote = bytes[index]
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    guard let end = find(quote, from: index + 1) else { return nil }
                    value = (index + 1)..<end
                    index = end + 1
                } else if quote == UInt8(ascii: ">") {
                    value = index..<index
                } else {
                    let start = index
                    while index < count, !HTMLBytes.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    value = start..<index
                }
            }
            // Repeated attributes: the first one counts. Gumbo 0.10.1 drops the
            // value of the attribute after a repeated one that has none.
            if !result.attributes.contains(where: { sameName($0.name, name) }) {
                result.attributes.append(Tag.Attribute(name: name, value: value))
            } else if value == nil {
                return nil
            }
        }
        return nil
    }

    // MARK: Text

    /// Character data in `range`.
    private mutating func text(_ range: Range<Int>) -> Bool {
        var range = range
        if dropLineFeed {
            dropLineFeed = false
            // Gumbo drops a line feed written as a reference too.
            if bytes[range.lowerBound] == UInt8(ascii: "&") { return false }
            if bytes[range.lowerBound] == 0x0D {
                range = range.dropFirst()
                if let first = range.first, bytes[first] == 0x0A { range = range.dropFirst() }
            } else if bytes[range.lowerBound] == 0x0A {
                range = range.dropFirst()
            }
            if range.isEmpty { return true }
        }
        guard templateDepth == 0 else { return true }
        let current = stack.last!
        if !foreign.isEmpty {
            // In an <svg>: text, which only a link's text reads.
        } else if Tags.tableContext.contains(current) || current == GUMBO_TAG_COLGROUP {
            guard isAllSpace(range) else { return false }
        } else if !bodyStarted, !isAllSpace(range) {
            startBody()
        }
        guard link != nil else { return true }
        guard countNode() else { return false }
        return appendToLink(decoded(range, inAttribute: false))
    }

    /// Adds `piece` to the open link's text, up to where more cannot change it.
    private mutating func appendToLink(_ piece: String?) -> Bool {
        guard let piece else { return false }
        guard let nonSpace = link?.nonSpace, nonSpace <= LinkText.maximumLength else { return true }
        // Changed in place: a copy of the link would copy its text.
        link?.text += piece
        link?.nonSpace += LinkText.nonSpaceLength(piece)
        return true
    }

    /// Counts a node of the open link's text: past `LinkText.maximumNodes`,
    /// its text is read differently, and the tree builder's reading is used.
    private mutating func countNode() -> Bool {
        guard let nonSpace = link?.nonSpace, nonSpace <= LinkText.maximumLength else { return true }
        link?.nodes += 1
        // The tree builder's nodes are at most twice these (a raw text element and its text, implied rows).
        return (link?.nodes ?? 0) < LinkText.maximumNodes / 2
    }

    /// The text in `range` with its character references read and its line
    /// breaks as the tokenizer makes them; nil when it is not UTF-8.
    private func decoded(_ range: Range<Int>, inAttribute: Bool) -> String? {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if !slice.contains(UInt8(ascii: "&")), !slice.contains(0x0D) {
            return readableText(slice)
        }
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        var index = range.lowerBound
        let end = range.upperBound
        let limited = UnsafeBufferPointer(rebasing: bytes[..<end])
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "&") {
                switch CharacterReference.read(limited, at: index, inAttribute: inAttribute) {
                case .decoded(let text, let after):
                    output.append(contentsOf: text.utf8)
                    index = after
                case .literal:
                    output.append(byte)
                    index += 1
                case .outOfRange:
                    return nil
                }
            } else if byte == 0x0D {
                output.append(0x0A)
                index += 1
                if index < end, bytes[index] == 0x0A { index += 1 }
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output.withUnsafeBufferPointer(readableText)
    }

    /// `bytes` as text, when they are UTF-8 and `readable`; nil otherwise.
    /// Most text is ASCII, read in one pass over its bytes.
    private func readableText(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        for byte in bytes {
            if byte >= 0x80 { return String(validating: bytes, as: UTF8.self).flatMap(readable) }
            if byte < 0x20 {
                guard byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D else { return nil }
            } else if byte == 0x7F {
                return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text`, unless it holds a character Gumbo's input stream replaces with
    /// U+FFFD (C0 and C1 controls but white space, noncharacters): such text
    /// is left to the tree builder.
    private func readable(_ text: String) -> String? {
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 {
                guard value == 0x09 || value == 0x0A || value == 0x0C || value == 0x0D else { return nil }
            } else if value >= 0x7F {
                if value <= 0x9F || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE { return nil }
            }
        }
        return text
    }

    /// The text in `range` as written, its line breaks as the tokenizer makes them; nil when it is not UTF-8.
    private func rawText(_ range: Range<Int>) -> String? {
        guard let text = readableText(UnsafeBufferPointer(rebasing: bytes[range])) else { return nil }
        guard text.utf8.contains(0x0D) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    // MARK: Start tags

    private mutating func startTag(_ tag: inout Tag) -> Bool {
        let name = tag.tag
        if templateDepth > 0 {
            // A template's content is not read, but its raw text is still raw text.
            if name == GUMBO_TAG_TEMPLATE { templateDepth += 1 }
            // Foreign content and plain text tokenize otherwise; a cell, an object or a select
            // left open keeps formatting elements alive past the template's end.
            if Tags.unreadInTemplate.contains(name) { return false }
            return skipRawText(of: name) != nil
        }
        if !foreign.isEmpty { return foreignStart(tag) }
        let first = !sawStructure
        sawStructure = true
        if name == GUMBO_TAG_HTML {
            // A later `<html>` adds its attributes to the first (and starts the head).
            guard first else {
                headStarted = true
                return tag.attributes.isEmpty
            }
            return record(tag)
        }
        if stack.last == GUMBO_TAG_COLGROUP {
            if name == GUMBO_TAG_COL { return record(tag) }
            stack.removeLast()
        }
        if Tags.tableContext.contains(stack.last!) {
            switch name {
            case GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_TEMPLATE:
                return inHead(tag)
            case _ where Tags.tableStructure.contains(name):
                return tableStructure(tag)
            default:
                return false  // moved before the table
            }
        }
        if !bodyStarted {
            if name == GUMBO_TAG_HEAD {
                guard !headStarted else { return tag.attributes.isEmpty }
                headStarted = true
                return record(tag)
            }
            if name == GUMBO_TAG_BODY {
                startBody()
                return record(tag)
            }
            if Tags.head.contains(name), !(name == GUMBO_TAG_NOSCRIPT && afterHead) {
                headStarted = true
                return inHead(tag)
            }
            startBody()
        }
        return inBody(tag)
    }

    /// The start tags the head has, wherever they come.
    private mutating func inHead(_ tag: Tag) -> Bool {
        switch tag.tag {
        case GUMBO_TAG_TEMPLATE:
            stack.append(GUMBO_TAG_TEMPLATE)
            templateDepth = 1
            return record(tag)
        case GUMBO_TAG_NOSCRIPT:
            guard link == nil, record(tag) else { return false }
            return skipNoscript()
        default:
            return record(tag)
        }
    }

    private mutating func inBody(_ tag: Tag) -> Bool {
        let name = tag.tag
        guard !Tags.unsupported.contains(name) else { return false }
        switch name {
        case GUMBO_TAG_HTML, GUMBO_TAG_HEAD, GUMBO_TAG_BODY:
            return tag.attributes.isEmpty  // merged into the element there is: no new element
        case _ where Tags.head.contains(name):
            return inHead(tag)
        case _ where Tags.blockStarts.contains(name):
            guard closeParagraph() else { return false }
        case _ where Tags.headings.contains(name):
            guard closeParagraph() else { return false }
            if Tags.headings.contains(stack.last!) { stack.removeLast() }
        case GUMBO_TAG_PRE, GUMBO_TAG_LISTING:
            guard closeParagraph() else { return false }
            stack.append(name)
            dropLineFeed = true
            return record(tag)
        case GUMBO_TAG_FORM:
            guard !formOpen, closeParagraph() else { return false }
            formOpen = true
        case GUMBO_TAG_LI, GUMBO_TAG_DD, GUMBO_TAG_DT:
            guard closeListItem(name == GUMBO_TAG_LI ? [GUMBO_TAG_LI] : [GUMBO_TAG_DD, GUMBO_TAG_DT]),
                  closeParagraph() else { return false }
        case GUMBO_TAG_BUTTON:
            guard inScope(GUMBO_TAG_BUTTON, Tags.scope) == nil else { return false }
        case GUMBO_TAG_A:
            guard !stack.contains(GUMBO_TAG_A) else { return false }
        case _ where Tags.formatting.contains(name):
            // A fourth one open with the same attributes drops the first from the active formatting elements.
            guard let signature = signature(of: tag) else { return false }
            var alike = 0
            for index in stack.indices where stack[index] == name && index < signatures.count && signatures[index] == signature {
                alike += 1
            }
            guard alike < 3 else { return false }
            if signatures.count < stack.count + 1 { signatures += Array(repeating: "", count: stack.count + 1 - signatures.count) }
            signatures[stack.count] = signature
        case GUMBO_TAG_SVG:
            if !tag.selfClosing { foreign = [[UInt8]("svg".utf8)] }
            return recordForeign(tag)
        case GUMBO_TAG_TABLE:
            guard inScope(GUMBO_TAG_P, Tags.buttonScope) == nil else { return false }  // quirks mode decides
        case GUMBO_TAG_HR:
            guard closeParagraph() else { return false }
            return record(tag)
        case GUMBO_TAG_XMP:
            guard closeParagraph() else { return false }
            return record(tag)
        case GUMBO_TAG_TEXTAREA, GUMBO_TAG_IFRAME, GUMBO_TAG_NOEMBED:
            return record(tag)
        case GUMBO_TAG_OPTION, GUMBO_TAG_OPTGROUP:
            if stack.last == GUMBO_TAG_OPTION { stack.removeLast() }
        case _ where Tags.tableStructure.contains(name):
            guard cellInScope() != nil else { return false }  // ignored outside a table
            return tableStructure(tag)
        case _ where Tags.void.contains(name):
            return record(tag)
        default:
            break
        }
        stack.append(name)
        return record(tag)
    }

    /// A table's row, cell, section or column group, in a table or a cell.
    private mutating func tableStructure(_ tag: Tag) -> Bool {
        let name = tag.tag
        if let cell = cellInScope() {
            guard closeCell(at: cell) else { return false }
        }
        while true {
            let current = stack.last!
            switch name {
            case GUMBO_TAG_TD, GUMBO_TAG_TH:
                if current == GUMBO_TAG_TR {
                    stack.append(name)
                } else if Tags.sections.contains(current) {
                    stack += [GUMBO_TAG_TR, name]
                } else if current == GUMBO_TAG_TABLE {
                    stack += [GUMBO_TAG_TBODY, GUMBO_TAG_TR, name]
                } else {
                    return false
                }
                return record(tag)
            case GUMBO_TAG_TR:
                if current == GUMBO_TAG_TR { stack.removeLast(); continue }
                if Tags.sections.contains(current) {
                    stack.append(name)
                } else if current == GUMBO_TAG_TABLE {
                    stack += [GUMBO_TAG_TBODY, name]
                } else {
                    return false
                }
                return record(tag)
            case GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT, GUMBO_TAG_COLGROUP:
                if current == GUMBO_TAG_TR || Tags.sections.contains(current) { stack.removeLast(); continue }
                guard current == GUMBO_TAG_TABLE else { return false }
                stack.append(name)
                return record(tag)
            case GUMBO_TAG_COL:
                if current == GUMBO_TAG_TR || Tags.sections.contains(current) { stack.removeLast(); continue }
                guard current == GUMBO_TAG_TABLE else { return false }
                stack.append(GUMBO_TAG_COLGROUP)
                return record(tag)
            default:
                return false
            }
        }
    }

    /// What the tree builder reads of an element it inserts: its id, its
    /// event handlers, and what its name makes it (a link, a resource, a script, ...).
    private mutating func record(_ tag: Tag) -> Bool {
        guard countNode() else { return false }
        for attribute in tag.attributes {
            let name = attribute.name
            if name.count == 2, HTMLBytes.lowercased(bytes[name.lowerBound]) == UInt8(ascii: "i"),
               HTMLBytes.lowercased(bytes[name.lowerBound + 1]) == UInt8(ascii: "d") {
                guard let id = value(attribute) else { return false }
                facts.ids.append(id)
            } else if name.count >= 2, HTMLBytes.lowercased(bytes[name.lowerBound]) == UInt8(ascii: "o"),
                      HTMLBytes.lowercased(bytes[name.lowerBound + 1]) == UInt8(ascii: "n") {
                facts.handlers = true
            }
        }
        switch tag.tag {
        case GUMBO_TAG_A:
            if let name = attribute("name", of: tag) {
                guard let name = value(name) else { return false }
                facts.names.append(name)
            }
            guard let href = attribute("href", of: tag) else { return true }
            guard let value = value(href), let rel = optionalValue("rel", of: tag),
                  let aria = optionalValue("aria-label", of: tag), let title = optionalValue("title", of: tag) else { return false }
            facts.anchors.append(DocumentFacts.LinkElement(value: value, text: "", rel: rel ?? "", element: "a"))
            link = OpenLink(index: facts.anchors.count - 1, depth: stack.count - 1, ariaLabel: aria, title: title)
        case GUMBO_TAG_AREA:
            guard let href = attribute("href", of: tag) else { return true }
            guard let value = value(href), let rel = optionalValue("rel", of: tag),
                  let aria = optionalValue("aria-label", of: tag), let title = optionalValue("title", of: tag) else { return false }
            let text = LinkText.of(textContent: "", imageAlt: { nil }, ariaLabel: aria, title: title)
            facts.anchors.append(DocumentFacts.LinkElement(value: value, text: text, rel: rel ?? "", element: "area"))
        case GUMBO_TAG_IFRAME:
            guard let content = skipRawText(of: GUMBO_TAG_IFRAME) else { return false }
            guard let source = attribute("src", of: tag) else { return appendToLink(content) }
            guard let value = value(source), let rel = optionalValue("rel", of: tag),
                  let aria = optionalValue("aria-label", of: tag), let title = optionalValue("title", of: tag) else { return false }
            if value.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("javascript:") { facts.handlers = true }
            let text = LinkText.of(textContent: content ?? "", imageAlt: { nil }, ariaLabel: aria, title: title)
            facts.frames.append(DocumentFacts.LinkElement(value: value, text: text, rel: rel ?? "", element: "iframe"))
            return appendToLink(content)
        case GUMBO_TAG_BASE:
            if facts.baseHref == nil, let href = attribute("href", of: tag) {
                guard let value = value(href) else { return false }
                facts.baseHref = value
            }
        case GUMBO_TAG_TITLE:
            guard let content = skipRawText(of: GUMBO_TAG_TITLE), let text = content else { return false }
            facts.readTitle(text)
            return appendToLink(text)
        case GUMBO_TAG_META:
            guard let charset = optionalValue("charset", of: tag), let equiv = optionalValue("http-equiv", of: tag),
                  let content = optionalValue("content", of: tag) else { return false }
            facts.readMeta(charset: charset, httpEquiv: equiv, content: content)
        case GUMBO_TAG_SCRIPT:
            guard let content = skipRawText(of: GUMBO_TAG_SCRIPT), let text = content,
                  let type = optionalValue("type", of: tag), let source = optionalValue("src", of: tag) else { return false }
            facts.readScript(type: type, source: source) { text }
            return appendToLink(text)
        case GUMBO_TAG_IMG, GUMBO_TAG_SOURCE:
            let isImage = tag.tag == GUMBO_TAG_IMG
            guard let alt = isImage ? optionalValue("alt", of: tag) : .some(nil),
                  let source = optionalValue("src", of: tag), let set = optionalValue("srcset", of: tag) else { return false }
            let element = isImage ? "img" : "source"
            if let source { facts.embeds.append(.init(element: element, attribute: "src", value: source, alt: alt ?? "")) }
            if let set { facts.embeds.append(.init(element: element, attribute: "srcset", value: set, alt: alt ?? "")) }
            if isImage, let alt, var open = link, open.imageAlt == nil {
                open.imageAlt = alt
                link = open
            }
        case GUMBO_TAG_VIDEO, GUMBO_TAG_AUDIO:
            guard let source = optionalValue("src", of: tag) else { return false }
            if let source {
                facts.embeds.append(.init(element: tag.tag == GUMBO_TAG_VIDEO ? "video" : "audio", attribute: "src",
                                          value: source, alt: ""))
            }
        case GUMBO_TAG_LINK:
            guard let href = optionalValue("href", of: tag), let rel = optionalValue("rel", of: tag) else { return false }
            if let href, EmbeddedResource.isResourceLink(rel: rel ?? "") {
                facts.embeds.append(.init(element: "link", attribute: "href", value: href, alt: ""))
            }
        case GUMBO_TAG_STYLE, GUMBO_TAG_XMP, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES, GUMBO_TAG_TEXTAREA:
            guard let content = skipRawText(of: tag.tag), let text = content else { return false }
            return appendToLink(text)
        default:
            break
        }
        return true
    }

    /// A start tag inside an `<svg>`: an element of the SVG namespace, whose
    /// id counts; the HTML elements that end the `<svg>`, its scripts and
    /// the elements whose content is HTML again are left to the tree builder.
    private mutating func foreignStart(_ tag: Tag) -> Bool {
        guard !Tags.breakOut.contains(tag.tag), tag.tag != GUMBO_TAG_SCRIPT, tag.tag != GUMBO_TAG_FOREIGNOBJECT,
              tag.tag != GUMBO_TAG_MATH else { return false }
        // An SVG <title> or <desc> holds HTML: text alone is read the same.
        if let open = foreign.last, open == Array("title".utf8) || open == Array("desc".utf8) { return false }
        if !tag.selfClosing { foreign.append(tag.name.map { HTMLBytes.lowercased(bytes[$0]) }) }
        return recordForeign(tag)
    }

    /// What the tree builder's reading takes from an SVG element: its id, an `<a>`'s name.
    private mutating func recordForeign(_ tag: Tag) -> Bool {
        guard countNode() else { return false }
        if let id = attribute("id", of: tag) {
            guard let id = value(id) else { return false }
            facts.ids.append(id)
        }
        if tag.tag == GUMBO_TAG_A, let name = attribute("name", of: tag) {
            guard let name = value(name) else { return false }
            facts.names.append(name)
        }
        return true
    }

    // MARK: Raw text

    /// The text of a raw text element just started (`<script>`, `<style>`,
    /// `<title>`, ...), to its end tag, which is read too: nil to give up,
    /// `.some(nil)` for an element whose content is markup.
    private mutating func skipRawText(of tag: GumboTag) -> String?? {
        let escapable: Bool
        switch tag {
        case GUMBO_TAG_TITLE, GUMBO_TAG_TEXTAREA: escapable = true
        case GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_XMP, GUMBO_TAG_IFRAME, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES:
            escapable = false
        default: return .some(nil)
        }
        let name = String(cString: gumbo_normalized_tagname(tag))
        let start = position
        guard let end = endOfRawText(named: name, from: start) else { return nil }
        if tag == GUMBO_TAG_SCRIPT, find("<!--", from: start, before: end) != nil { return nil }
        var content = start..<end
        if tag == GUMBO_TAG_TEXTAREA, let first = content.first {
            if bytes[first] == UInt8(ascii: "&") { return nil }  // a line feed written as a reference is dropped too
            if bytes[first] == 0x0D {
                content = content.dropFirst()
                if let next = content.first, bytes[next] == 0x0A { content = content.dropFirst() }
            } else if bytes[first] == 0x0A {
                content = content.dropFirst()
            }
        }
        guard readTag(nameStart: end + 2)?.attributes.isEmpty == true else { return nil }
        guard let text = escapable ? decoded(content, inAttribute: false) : rawText(content) else { return nil }
        return text
    }

    /// Where the first `</name` followed by white space, `/` or `>` starts, from `start`.
    private func endOfRawText(named name: String, from start: Int) -> Int? {
        HTMLBytes.endOfRawText(named: Array(name.utf8), in: bytes, from: start)
    }

    /// A `<noscript>`'s content, which the document's reading leaves out:
    /// read here only when it holds text and empty elements (in the head,
    /// `<link>` and `<meta>` and white space), so that the tree builder's
    /// nesting of it is plain.
    private mutating func skipNoscript() -> Bool {
        let start = position
        guard let end = endOfRawText(named: "noscript", from: start) else { return false }
        let allowed = bodyStarted ? Tags.noscriptBody : Tags.noscriptHead
        var index = start
        while index < end {
            guard let less = find(UInt8(ascii: "<"), from: index), less < end else {
                if !bodyStarted, !isAllSpace(index..<end) { return false }
                break
            }
            if !bodyStarted, !isAllSpace(index..<less) { return false }
            let next = bytes[less + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "/") || next == UInt8(ascii: "?") { return false }
            if HTMLBytes.isLetter(next) {
                guard let tag = readTag(nameStart: less + 1), allowed.contains(tag.tag), position <= end else { return false }
                index = position
            } else {
                if !bodyStarted { return false }
                index = less + 1
            }
        }
        return readTag(nameStart: end + 2)?.attributes.isEmpty == true
    }

    // MARK: End tags

    private mutating func endTag(_ tag: Tag) -> Bool {
        let name = tag.tag
        if !foreign.isEmpty {
            // Only the end tag of the element open closes it.
            // Gumbo compares the end tag as written, `>` right after the name.
            guard let open = foreign.last, open.count == tag.name.count, position == tag.name.upperBound + 1,
                  zip(tag.name, open).allSatisfy({ HTMLBytes.lowercased(bytes[$0]) == $1 }) else { return false }
            foreign.removeLast()
            return true
        }
        if templateDepth > 0 {
            if name == GUMBO_TAG_TEMPLATE {
                templateDepth -= 1
                if templateDepth == 0 { stack.removeLast() }
            }
            return true
        }
        if stack.last == GUMBO_TAG_COLGROUP {
            if name == GUMBO_TAG_COLGROUP {
                stack.removeLast()
                return true
            }
            if name == GUMBO_TAG_COL { return true }
            stack.removeLast()
        }
        if Tags.tableContext.contains(stack.last!) { return endTagInTable(name) }
        if !bodyStarted {
            headStarted = true
            if name == GUMBO_TAG_HEAD { afterHead = true }
            guard name == GUMBO_TAG_BODY || name == GUMBO_TAG_HTML || name == GUMBO_TAG_BR else { return true }
            startBody()
        }
        switch name {
        case GUMBO_TAG_TEMPLATE, GUMBO_TAG_BODY, GUMBO_TAG_HTML, GUMBO_TAG_HEAD:
            return true
        case GUMBO_TAG_BR:
            return countNode()  // a <br> element
        case GUMBO_TAG_P:
            guard inScope(GUMBO_TAG_P, Tags.buttonScope) != nil else { return countNode() }  // an empty <p>
            return close(GUMBO_TAG_P)
        case GUMBO_TAG_LI:
            guard inScope(GUMBO_TAG_LI, Tags.listScope) != nil else { return true }
            return close(GUMBO_TAG_LI)
        case GUMBO_TAG_DD, GUMBO_TAG_DT:
            guard inScope(name, Tags.scope) != nil else { return true }
            return close(name)
        case _ where Tags.headings.contains(name):
            guard let index = stack.lastIndex(where: { Tags.headings.contains($0) }),
                  !stack[index...].contains(where: { Tags.scope.contains($0) }) else { return true }
            return popTo(index)
        case _ where Tags.blockEnds.contains(name):
            guard inScope(name, Tags.scope) != nil else { return true }
            return close(name)
        case GUMBO_TAG_FORM:
            guard formOpen else { return true }
            generateImpliedEndTags(except: nil)
            guard stack.last == GUMBO_TAG_FORM else { return false }
            stack.removeLast()
            formOpen = false
            return true
        case _ where Tags.formatting.contains(name):
            if stack.last == name { return pop(ownEndTag: true) }
            guard let index = stack.lastIndex(of: name) else { return true }
            // The adoption agency's plain case: only ordinary elements open above it, which close with it.
            guard stack[(index + 1)...].allSatisfy({ !Tags.special.contains($0) && !Tags.formatting.contains($0) }) else {
                return false
            }
            stack.removeLast(stack.count - index - 1)
            return pop(ownEndTag: true)
        case GUMBO_TAG_TD, GUMBO_TAG_TH:
            guard let cell = cellInScope(), stack[cell] == name else { return true }
            return closeCell(at: cell)
        case GUMBO_TAG_TR, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT, GUMBO_TAG_TABLE:
            guard let cell = cellInScope(), inScope(name, Tags.tableScope) != nil else { return true }
            guard closeCell(at: cell) else { return false }
            return endTagInTable(name)
        case _ where Tags.tableStructure.contains(name):
            return true
        case _ where Tags.unsupported.contains(name):
            return !stack.contains(name)
        default:
            // Any other end tag closes its element, unless a special element is open above it.
            for index in stack.indices.reversed() {
                if stack[index] == name {
                    generateImpliedEndTags(except: name)
                    return popTo(index)
                }
                if Tags.special.contains(stack[index]) { return true }
            }
            return true
        }
    }

    /// An end tag whose current node is a table, a section or a row.
    private mutating func endTagInTable(_ name: GumboTag) -> Bool {
        switch name {
        case GUMBO_TAG_TABLE:
            guard let index = stack.lastIndex(of: GUMBO_TAG_TABLE) else { return true }
            return popTo(index)
        case GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT:
            guard inScope(name, Tags.tableScope) != nil else { return true }
            if stack.last == GUMBO_TAG_TR { stack.removeLast() }
            guard stack.last == name else { return false }
            stack.removeLast()
            return true
        case GUMBO_TAG_TR:
            if stack.last == GUMBO_TAG_TR { stack.removeLast() }
            return true
        case GUMBO_TAG_BODY, GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_HTML, GUMBO_TAG_TD,
             GUMBO_TAG_TH, GUMBO_TAG_TEMPLATE:
            return true
        default:
            return false
        }
    }

    // MARK: The stack of open elements

    private mutating func startBody() {
        guard !bodyStarted else { return }
        bodyStarted = true
        headStarted = true
        sawStructure = true
        stack.append(GUMBO_TAG_BODY)
    }

    /// The index of the nearest open `name` with no element of `scope` above it.
    private func inScope(_ name: GumboTag, _ scope: TagSet) -> Int? {
        for index in stack.indices.reversed() {
            if stack[index] == name { return index }
            if scope.contains(stack[index]) { return nil }
        }
        return nil
    }

    /// The open cell in table scope, if any.
    private func cellInScope() -> Int? {
        for index in stack.indices.reversed() {
            if Tags.cells.contains(stack[index]) { return index }
            if Tags.tableScope.contains(stack[index]) { return nil }
        }
        return nil
    }

    /// Closes the cell at `index` and all that is open in it; formatting elements in it end with it.
    private mutating func closeCell(at index: Int) -> Bool {
        while stack.count > index {
            let tag = stack.removeLast()
            if tag == GUMBO_TAG_FORM { return false }
            if link != nil, stack.count == link!.depth { closeLink() }
        }
        return true
    }

    private mutating func closeParagraph() -> Bool {
        guard inScope(GUMBO_TAG_P, Tags.buttonScope) != nil else { return true }
        return close(GUMBO_TAG_P)
    }

    /// A `<li>`'s (or `<dd>`'s and `<dt>`'s) closing of the open item it follows.
    private mutating func closeListItem(_ names: [GumboTag]) -> Bool {
        for index in stack.indices.reversed() {
            let tag = stack[index]
            if names.contains(tag) {
                generateImpliedEndTags(except: tag)
                return popTo(index)
            }
            if Tags.special.contains(tag), tag != GUMBO_TAG_ADDRESS, tag != GUMBO_TAG_DIV, tag != GUMBO_TAG_P {
                return true
            }
        }
        return true
    }

    /// Closes the nearest open `name` and what is open above it.
    private mutating func close(_ name: GumboTag) -> Bool {
        generateImpliedEndTags(except: name)
        guard let index = stack.lastIndex(of: name) else { return true }
        return popTo(index)
    }

    private mutating func generateImpliedEndTags(except name: GumboTag?) {
        while let current = stack.last, Tags.impliedEnd.contains(current), current != name {
            stack.removeLast()
        }
    }

    /// Pops the elements from `index` up; a formatting element closed so
    /// would be copied again by the tree builder.
    private mutating func popTo(_ index: Int) -> Bool {
        while stack.count > index {
            guard pop(ownEndTag: false) else { return false }
        }
        return true
    }

    private mutating func pop(ownEndTag: Bool) -> Bool {
        let tag = stack.removeLast()
        if link != nil, stack.count == link!.depth { closeLink() }
        if tag == GUMBO_TAG_FORM { return false }
        return ownEndTag || !Tags.formatting.contains(tag)
    }

    /// Ends the open link's text.
    mutating func closeLink() {
        guard let open = link else { return }
        facts.anchors[open.index].text = LinkText.of(textContent: open.text, imageAlt: { open.imageAlt },
                                                     ariaLabel: open.ariaLabel, title: open.title)
        link = nil
    }

    // MARK: Attributes

    /// The attribute called `name` (in lower case), if the tag has it.
    private func attribute(_ name: StaticString, of tag: Tag) -> Tag.Attribute? {
        name.withUTF8Buffer { name in
            tag.attributes.first { attribute in
                attribute.name.count == name.count && zip(attribute.name, name).allSatisfy { HTMLBytes.lowercased(bytes[$0]) == $1 }
            }
        }
    }

    /// An attribute's value with its references read; nil when it is not UTF-8.
    private func value(_ attribute: Tag.Attribute) -> String? {
        guard let range = attribute.value else { return "" }
        return decoded(range, inAttribute: true)
    }

    /// The value of `name` if the tag has it: `.some(nil)` when it does not, nil when its value is not UTF-8.
    private func optionalValue(_ name: StaticString, of tag: Tag) -> String?? {
        guard let attribute = attribute(name, of: tag) else { return .some(nil) }
        return value(attribute).map { .some($0) }
    }

    /// A tag's attributes, names and values, sorted: equal for elements the tree builder counts as alike.
    private func signature(of tag: Tag) -> String? {
        var pairs: [String] = []
        for attribute in tag.attributes {
            guard let value = value(attribute) else { return nil }
            pairs.append(String(decoding: attribute.name.map { HTMLBytes.lowercased(bytes[$0]) }, as: UTF8.self) + "=" + value)
        }
        return pairs.sorted().joined(separator: "\u{0}")
    }

    private func sameName(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { HTMLBytes.lowercased(bytes[$0]) == HTMLBytes.lowercased(bytes[$1]) }
    }

    // MARK: Bytes

    private func find(_ byte: UInt8, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        guard let found = memchr(bytes.baseAddress! + start, Int32(byte), bytes.count - start) else { return nil }
        return UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress!
    }

    /// The first `text` that starts at `start` or later and ends by `limit` (the end, by default).
    private func find(_ text: StaticString, from start: Int, before limit: Int? = nil) -> Int? {
        let limit = limit ?? bytes.count
        return text.withUTF8Buffer { needle in
            var index = start
            while let first = find(needle[0], from: index) {
                guard first + needle.count <= limit else { return nil }
                if needle.indices.allSatisfy({ bytes[first + $0] == needle[$0] }) { return first }
                index = first + 1
            }
            return nil
        }
    }

    /// Whether `text` (in lower case when `ignoringCase`) is written at `index`.
    private func matches(_ text: StaticString, at index: Int, ignoringCase: Bool = false) -> Bool {
        text.withUTF8Buffer { needle in
            guard index + needle.count <= bytes.count else { return false }
            return needle.indices.allSatisfy {
                ignoringCase ? HTMLBytes.lowercased(bytes[index + $0]) == needle[$0] : bytes[index + $0] == needle[$0]
            }
        }
    }

    private func isAllSpace(_ range: Range<Int>) -> Bool {
        range.allSatisfy { HTMLBytes.isSpace(bytes[$0]) }
    }
}
