/// A linear look at a document's tags, before the tree builder sees it, that
/// bounds how deep its elements can nest.
///
/// Gumbo's time grows with the square of the nesting depth (100,000 nested
/// `<div>`s take minutes) and it recurses over the tree (deep tables and
/// lists overflow a thread's stack), while a browser caps the depth (WebKit
/// at 512) and carries on. A document this scan finds deeper than the limit
/// is not parsed: the crawl renders it instead.
///
/// The scan keeps a stack of the elements open, as HTML's tree builder does,
/// with the tree builder's common rules for end tags left out: a `<li>`
/// closes the `<li>` open in its list, `<dd>` and `<dt>` close each other,
/// `<option>` and `<optgroup>` close an open `<option>`, a block element
/// (`<div>`, `<ul>`, `<p>`, `<h1>`, `<table>`, ...) closes an open `<p>`, a
/// heading closes a heading, a cell or row closes the cell or row open in
/// its table, and an end tag closes what is open above its element. So a
/// mailing-list archive's 2,000 `<LI>`s without `</LI>` are 2,000 siblings,
/// as they are in the browser.
///
/// Where it is not sure, the count errs on the high side: an end tag that
/// would have to look past an element it may not close (a `<span>`'s past a
/// `<div>`), or more than `lookBehind` elements down the stack, closes
/// nothing. Inside `<svg>` and `<math>` a self-closing tag (`<path/>`) is
/// empty; elsewhere `/>` closes nothing, as in HTML. The elements a tree
/// builder adds by itself (`<tbody>`, `<tr>` in a table) at most double the
/// real depth.
package enum NestingScan {
    /// The deepest count a document may reach and still be parsed.
    package static let limit = 2048
    /// How far down the stack of open elements a tag looks for the element it
    /// closes: bounding it keeps the scan linear in the document's size.
    static let lookBehind = 32

    /// Whether `bytes` stays within `limit`.
    package static func isWithinLimit(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = limit) -> Bool {
        var open = OpenElements()
        var i = 0
        let n = bytes.count
        while i < n {
            guard bytes[i] == UInt8(ascii: "<"), i + 1 < n else { i += 1; continue }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "!") {
                if i + 3 < n, bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                    i = find("-->", in: bytes, from: i + 4).map { $0 + 3 } ?? n
                } else {
                    i = find(">", in: bytes, from: i + 2).map { $0 + 1 } ?? n
                }
                continue
            }
            if next == UInt8(ascii: "?") {
                i = find(">", in: bytes, from: i + 2).map { $0 + 1 } ?? n
                continue
            }
            let isEnd = next == UInt8(ascii: "/")
            let nameStart = isEnd ? i + 2 : i + 1
            // A tag name starts with a letter; `<` before anything else is text.
            guard nameStart < n, HTMLBytes.isLetter(bytes[nameStart]) else { i += 1; continue }
            var nameEnd = nameStart
            while nameEnd < n, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            let name = hash(of: UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]))
            let (tagEnd, selfClosing) = endOfTag(bytes, from: nameEnd)
            i = tagEnd
            if isEnd {
                open.end(name)
            } else if rawText.contains(name) {
                // Its content is text up to its own end tag, whatever it holds.
                i = endOfRawText(named: bytes[nameStart..<nameEnd], in: bytes, from: i)
            } else if !void.contains(name) && !(selfClosing && open.inForeignContent) {
                open.start(name)
                if open.depth > limit { return false }
            }
        }
        return true
    }

    /// The stack of open elements, by `hash(of:)` of their names (a
    /// collision only merges two names), with a count per name so that a tag
    /// whose element is not open at all looks nowhere.
    private struct OpenElements {
        private var stack: [UInt64] = []
        private var counts: [UInt64: Int] = [:]

        var depth: Int { stack.count }
        var inForeignContent: Bool { counts[Tag.svg, default: 0] + counts[Tag.math, default: 0] > 0 }

        mutating func start(_ name: UInt64) {
            if Tag.unique.contains(name), counts[name, default: 0] > 0 { return }  // a second <body> merges with the first
            if let closes = Tag.closedByStart[name] { closeOne(of: closes.names, within: closes.scope) }
            if Tag.closesParagraph.contains(name) { closeOne(of: Tag.paragraph, within: Tag.buttonScope) }
            if let top = stack.last, Tag.closedIfOnTop[name]?.contains(top) == true { pop() }
            if name == Tag.optgroup, let top = stack.last, top == Tag.optgroup { pop() }
            // A link inside a link is closed first, as an end tag would close it.
            if name == Tag.a { end(name) }
            stack.append(name)
            counts[name, default: 0] += 1
        }

        mutating func end(_ name: UInt64) {
            if Tag.keptOpen.contains(name) { return }  // </body> and </html> leave them open
            if let scope = Tag.endScope[name] {
                // A block's end tag closes it when it is in scope, whatever is open above it.
                if Tag.headings.contains(name) {
                    closeOne(of: Tag.headings, within: scope)
                } else {
                    closeOne(of: Tag.single[name] ?? [name], within: scope)
                }
                return
            }
            // Any other end tag closes its element unless a block stands above it.
            guard counts[name, default: 0] > 0 else { return }
            for (steps, index) in stack.indices.reversed().enumerated() {
                guard steps < NestingScan.lookBehind else { return }
                if stack[index] == name {
                    popTo(index)
                    return
                }
                if Tag.special.contains(stack[index]) { return }
            }
        }

        /// Closes the nearest open element of `names`, and everything above
        /// it, when no element of `scope` stands between it and the top.
        private mutating func closeOne(of names: Set<UInt64>, within scope: Set<UInt64>) {
            guard names.contains(where: { counts[$0, default: 0] > 0 }) else { return }
            for (steps, index) in stack.indices.reversed().enumerated() {
                guard steps < NestingScan.lookBehind else { return }
                if names.contains(stack[index]) {
                    popTo(index)
                    return
                }
                if scope.contains(stack[index]) { return }
            }
        }

        private mutating func popTo(_ index: Int) {
            while stack.count > index { pop() }
        }

        private mutating func pop() {
            let name = stack.removeLast()
            counts[name, default: 1] -= 1
        }
    }

    /// The tag names the scan's rules name, and the sets of them the HTML
    /// standard's tree-construction rules use.
    private enum Tag {
        static let p = hash("p"), a = hash("a"), optgroup = hash("optgroup"), svg = hash("svg"), math = hash("math")
        static let headings = names("h1", "h2", "h3", "h4", "h5", "h6")
        /// Start tags that close the current element when it is one of these.
        static let closedIfOnTop: [UInt64: Set<UInt64>] = {
            var rules: [UInt64: Set<UInt64>] = [hash("option"): names("option"), hash("optgroup"): names("option")]
            for heading in ["h1", "h2", "h3", "h4", "h5", "h6"] { rules[hash(heading)] = headings }
            return rules
        }()
        /// Elements a document has once: a second start tag adds nothing.
        static let unique = names("html", "head", "body")
        static let keptOpen = names("html", "body")
        /// "Has an element in scope": the elements that end the search.
        static let scope = names("applet", "caption", "html", "table", "td", "th", "marquee", "object", "template",
                                 "svg", "math", "foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext",
                                 "annotation-xml")
        static let listItemScope = scope.union(names("ol", "ul"))
        static let buttonScope = scope.union(names("button"))
        static let tableScope = names("html", "table", "template")
        /// Start tags that close an open `<p>` ("close a p element").
        static let closesParagraph = names(
            "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
            "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol", "p",
            "search", "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "listing", "form",
            "li", "dd", "dt", "plaintext", "xmp")
        /// Start tags that close an open element of their own kind, within a scope.
        static let closedByStart: [UInt64: (names: Set<UInt64>, scope: Set<UInt64>)] = {
            var rules: [UInt64: (names: Set<UInt64>, scope: Set<UInt64>)] = [:]
            // "Loop": an open <li> is closed unless a special element other than these stands above it.
            rules[hash("li")] = (names("li"), special.subtracting(names("address", "div", "p", "li")))
            let definition = (names: names("dd", "dt"), scope: special.subtracting(names("address", "div", "p", "dd", "dt")))
            rules[hash("dd")] = definition
            rules[hash("dt")] = definition
            rules[hash("button")] = (names("button"), scope)
            rules[hash("td")] = (names("td", "th"), tableScope)
            rules[hash("th")] = (names("td", "th"), tableScope)
            rules[hash("tr")] = (names("tr"), tableScope)
            for section in ["tbody", "thead", "tfoot"] {
                rules[hash(section)] = (names("tbody", "thead", "tfoot"), tableScope)
            }
            return rules
        }()
        /// End tags closed by "has an element in scope", with that scope:
        /// they close their element whatever is open above it.
        static let paragraph: Set<UInt64> = [p]
        /// Each name of `endScope` as a set of one, made once.
        static let single: [UInt64: Set<UInt64>] = Dictionary(uniqueKeysWithValues: endScope.keys.map { ($0, [$0]) })
        static let endScope: [UInt64: Set<UInt64>] = {
            var rules: [UInt64: Set<UInt64>] = [:]
            for name in ["address", "article", "aside", "blockquote", "button", "center", "details", "dialog", "dir",
                         "div", "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "listing",
                         "main", "menu", "nav", "ol", "pre", "search", "section", "summary", "ul",
                         "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "applet", "marquee", "object"] {
                rules[hash(name)] = scope
            }
            rules[hash("li")] = listItemScope
            rules[hash("p")] = buttonScope
            for name in ["table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption", "colgroup"] {
                rules[hash(name)] = tableScope
            }
            return rules
        }()
        /// HTML's special elements: an end tag of another element does not
        /// close them, and stops at them.
        static let special = names(
            "address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br",
            "button", "caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed",
            "fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5",
            "h6", "head", "header", "hgroup", "hr", "html", "iframe", "img", "input", "keygen", "li", "link",
            "listing", "main", "marquee", "menu", "meta", "nav", "noembed", "noframes", "noscript", "object", "ol",
            "p", "param", "plaintext", "pre", "script", "search", "section", "select", "source", "style", "summary",
            "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "title", "tr", "track", "ul",
            "wbr", "xmp", "svg", "math")

        static func hash(_ name: StaticString) -> UInt64 {
            NestingScan.hash(of: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }

        static func hash(_ name: String) -> UInt64 {
            var name = name
            return name.withUTF8 { NestingScan.hash(of: $0) }
        }

        static func names(_ names: String...) -> Set<UInt64> {
            Set(names.map { hash($0) })
        }
    }

    private static let void: Set<UInt64> = names(
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img", "input",
        "keygen", "link", "meta", "param", "source", "track", "wbr")
    private static let rawText: Set<UInt64> = names(
        "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext")

    private static func names(_ names: StaticString...) -> Set<UInt64> {
        Set(names.map { hash(of: UnsafeBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount)) })
    }

    /// A tag name's 64-bit FNV-1a hash, ASCII letters lower-cased: names
    /// are compared by it (a collision only merges two names' counts).
    private static func hash(of name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name { hash = (hash ^ UInt64(HTMLBytes.lowercased(byte))) &* 0x100_0000_01b3 }
        return hash
    }

    /// What HTML's tokenizer takes into a tag name (up to white space, `/` or `>`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0C, 0x0D, 0x20, UInt8(ascii: "/"), UInt8(ascii: ">"): return false
        default: return true
        }
    }

    /// Just past the `>` that ends a tag whose name ends at `start`, minding
    /// quoted attribute values, and whether the tag ended with `/>`.
    private static func endOfTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, selfClosing: Bool) {
        var i = start, quote: UInt8?
        while i < bytes.count {
            let byte = bytes[i]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A quote opens a value only after `=`; elsewhere it is part of a name.
                var j = i - 1
                while j > start, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A { j -= 1 }
                if bytes[j] == UInt8(ascii: "=") { quote = byte }
            } else if byte == UInt8(ascii: ">") {
                return (i + 1, i > start && bytes[i - 1] == UInt8(ascii: "/"))
            }
            i += 1
        }
        return (bytes.count, false)
    }

    /// Just past `</name` (any case, then white space, `/` or `>`) at or
    /// after `start`; the end of `bytes` without one.
    private static func endOfRawText(named name: Slice<UnsafeBufferPointer<UInt8>>, in bytes: UnsafeBufferPointer<UInt8>,
                                     from start: Int) -> Int {
        HTMLBytes.endOfRawText(named: name.map(HTMLBytes.lowercased), in: bytes, from: start).map { $0 + 2 + name.count }
            ?? bytes.count
    }

    /// Where `needle` next starts in `bytes`, at or after `start`.
    private static func find(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard pattern.count > 0, start <= bytes.count - pattern.count else { return nil }
        var i = start
        while i <= bytes.count - pattern.count {
            if bytes[i] == pattern[0] {
                var j = 1
                while j < pattern.count, bytes[i + j] == pattern[j] { j += 1 }
                if j == pattern.count { return i }
            }
            i += 1
        }
        return nil
    }
}
