import CGumbo

/// A link's text as the facts script reads it: the element's text content
/// with each run of white space (JavaScript's `\s`) made one space and
/// trimmed; when that is empty, the `alt` of the first image inside that has
/// one (when not empty), else the `aria-label`, else the `title`; cut to 200 UTF-16
/// code units without leaving half a surrogate pair.
enum LinkText {
    static let maximumLength = 200

    /// The most nodes one link's text or image is looked for in: links can
    /// nest (in foreign content), and each one's text is read from its whole
    /// subtree, which would make a page of nested links quadratic. A link
    /// whose first text lies further than this is read as if it had none.
    static let maximumNodes = 10_000

    static func of(_ node: UnsafeMutablePointer<GumboNode>) -> String {
        var attributes = node.pointee.v.element.attributes
        return of(textContent: textContent(of: node), imageAlt: { firstImageAlt(in: node) },
                  ariaLabel: attributes.attribute("aria-label"), title: attributes.attribute("title"))
    }

    /// The text of a link whose text content is `textContent`, with the
    /// `alt` of its first image that has one, and its `aria-label` and `title`.
    static func of(textContent: String, imageAlt: () -> String?, ariaLabel: String?, title: String?) -> String {
        var text = collapsed(textContent)
        if text.isEmpty {
            let alt = imageAlt() ?? ""
            let fallback = !alt.isEmpty ? alt : ariaLabel.flatMap { $0.isEmpty ? nil : $0 } ?? title ?? ""
            text = collapsed(fallback)
        }
        // No longer than the cut in UTF-8, so no longer in UTF-16 either.
        if text.utf8.count <= maximumLength { return text }
        var units = Array(text.utf16.prefix(maximumLength))
        if let last = units.last, UTF16.isLeadSurrogate(last) { units.removeLast() }
        return units.count == text.utf16.count ? text : String(decoding: units, as: UTF16.self)
    }

    /// Every text node below `node` in document order (a template's content and
    /// comments aside), as `textContent` joins them, up to the first text
    /// that makes it longer than the cut (what follows cannot change the text
    /// kept) or `maximumNodes` nodes.
    private static func textContent(of node: UnsafeMutablePointer<GumboNode>) -> String {
        var text = ""
        var stack = [node]
        var visited = 0, nonSpace = 0
        while let current = stack.popLast(), visited < maximumNodes, nonSpace <= maximumLength {
            visited += 1
            switch current.pointee.type {
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE, GUMBO_NODE_CDATA:
                let piece = String(cString: current.pointee.v.text.text)
                text += piece
                // Counted in UTF-16 units that are not white space: once past the cut, the text kept is known.
                nonSpace += nonSpaceLength(piece)
            case GUMBO_NODE_ELEMENT:
                let children = current.pointee.v.element.children
                for index in stride(from: Int(children.length) - 1, through: 0, by: -1) {
                    stack.append(children.data[index]!.assumingMemoryBound(to: GumboNode.self))
                }
            default:
                break
            }
        }
        return text
    }

    /// The `alt` of the first `<img alt>` below `node` (`querySelector('img[alt]')`).
    private static func firstImageAlt(in node: UnsafeMutablePointer<GumboNode>) -> String? {
        var stack = [node]
        var visited = 0
        while let current = stack.popLast(), visited < maximumNodes {
            visited += 1
            guard current.pointee.type == GUMBO_NODE_ELEMENT else { continue }
            let element = current.pointee.v.element
            if current != node, element.tag == GUMBO_TAG_IMG, element.tag_namespace == GUMBO_NAMESPACE_HTML {
                var attributes = element.attributes
                if let alt = attributes.attribute("alt") { return alt }
            }
            if element.tag == GUMBO_TAG_NOSCRIPT { continue }
            for index in stride(from: Int(element.children.length) - 1, through: 0, by: -1) {
                stack.append(element.children.data[index]!.assumingMemoryBound(to: GumboNode.self))
            }
        }
        return nil
    }

    /// How many UTF-16 code units of `piece` are not white space (`isJavaScriptSpace`).
    static func nonSpaceLength(_ piece: String) -> Int {
        var count = 0
        for byte in piece.utf8 {
            guard byte < 0x80 else {
                return piece.unicodeScalars.reduce(0) { $0 + (isJavaScriptSpace($1) ? 0 : $1.utf16.count) }
            }
            if !isASCIISpace(byte) { count += 1 }
        }
        return count
    }

    /// JavaScript's `s.replace(/\s+/g, ' ').trim()`.
    static func collapsed(_ text: String) -> String {
        if let ascii = collapsedASCII(text) { return ascii }
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isJavaScriptSpace(scalar) {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `collapsed(text)` when `text` is ASCII (most link text is), read as
    /// bytes; `text` itself when nothing in it changes; nil when it is not ASCII.
    private static func collapsedASCII(_ text: String) -> String? {
        var unchanged = true, previousWasSpace = true
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil }
            let space = isASCIISpace(byte)
            // A space first, after another, or other than U+0020 changes the text; so does one last.
            if space, previousWasSpace || byte != 0x20 { unchanged = false }
            previousWasSpace = space
        }
        if unchanged, !previousWasSpace || text.isEmpty { return text }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            if isASCIISpace(byte) {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.append(0x20) }
                pendingSpace = false
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// An ASCII byte that is JavaScript white space (`\t`, `\n`, `\v`, `\f`, `\r`, space).
    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        (0x09...0x0D).contains(byte) || byte == 0x20
    }

    /// JavaScript's white space and line terminators (`\s`).
    static func isJavaScriptSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }
}
