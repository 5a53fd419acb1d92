/// A linear look at a document's tags, before the tree builder sees it, that
/// bounds how deep its elements can nest.
///
/// Gumbo's time grows with the square of the nesting depth (100,000 nested
/// `<div>`s take minutes) and it recurses over the tree (deep tables and
/// lists overflow a thread's stack), while a browser caps the depth (WebKit
/// at 512) and carries on. A document this scan finds deeper than the limit
/// is not parsed: the crawl renders it instead.
///
/// The count errs on the high side: every start tag of an element that is
/// neither void nor raw text counts, elements whose end tag may be left out
/// (`<p>`, `<li>`, ...) included, and an end tag counts only against a start
/// tag of its name still open. The elements a tree builder adds by itself
/// (`<tbody>`, `<tr>` in a table) at most double the real depth.
package enum NestingScan {
    /// The deepest count a document may reach and still be parsed.
    package static let limit = 2048

    /// Whether `bytes` stays within `limit`.
    package static func isWithinLimit(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = limit) -> Bool {
        var depth = 0
        var open: [UInt64: Int] = [:]  // by `hash(of:)` of the name
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
            guard nameStart < n, isLetter(bytes[nameStart]) else { i += 1; continue }
            var nameEnd = nameStart
            while nameEnd < n, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            let name = hash(of: UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]))
            i = endOfTag(bytes, from: nameEnd)
            if isEnd {
                if let count = open[name], count > 0 {
                    open[name] = count - 1
                    depth -= 1
                }
            } else if rawText.contains(name) {
                // Its content is text up to its own end tag, whatever it holds.
                i = endOfRawText(named: bytes[nameStart..<nameEnd], in: bytes, from: i)
            } else if !void.contains(name) {
                open[name, default: 0] += 1
                depth += 1
                if depth > limit { return false }
            }
        }
        return true
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
        for byte in name { hash = (hash ^ UInt64(lowercased(byte))) &* 0x100_0000_01b3 }
        return hash
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// What HTML's tokenizer takes into a tag name (up to white space, `/` or `>`).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0C, 0x0D, 0x20, UInt8(ascii: "/"), UInt8(ascii: ">"): return false
        default: return true
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Just past the `>` that ends a tag whose name ends at `start`, minding quoted attribute values.
    private static func endOfTag(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
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
                return i + 1
            }
            i += 1
        }
        return bytes.count
    }

    /// Just past `</name` (any case) at or after `start`; the end of `bytes` without one.
    private static func endOfRawText(named name: Slice<UnsafeBufferPointer<UInt8>>, in bytes: UnsafeBufferPointer<UInt8>,
                                     from start: Int) -> Int {
        var i = start
        while let lt = find("</", in: bytes, from: i) {
            let nameStart = lt + 2, nameEnd = nameStart + name.count
            if nameEnd <= bytes.count,
               zip(bytes[nameStart..<nameEnd], name).allSatisfy({ lowercased($0) == lowercased($1) }) {
                return nameEnd
            }
            i = lt + 2
        }
        return bytes.count
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
