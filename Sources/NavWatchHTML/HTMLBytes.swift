import Glibc

/// Markup's bytes as HTML's tokenizer tells them apart: its white space,
/// ASCII letters and their case, and where a raw text element's content ends.
enum HTMLBytes {
    /// HTML's white space: space, tab, line feed, form feed, carriage return.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0C || byte == 0x0D
    }

    /// An ASCII letter, of either case.
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// `byte` with an ASCII capital made small; any other byte as it is.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// Where the end tag of the raw text element `name` (small letters:
    /// `script`, `style`, `noscript`, …) starts in `bytes`, at or after
    /// `start`: `</`, the name in any case, then white space, `/` or `>`, as
    /// the tokenizer ends such an element's text. Nil when none does: the
    /// text runs to the end.
    static func endOfRawText(named name: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index < bytes.count, let found = memchr(base + index, Int32(UInt8(ascii: "<")), bytes.count - index) {
            let less = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            let after = less + 2 + name.count
            guard after < bytes.count else { return nil }
            if bytes[less + 1] == UInt8(ascii: "/"),
               name.indices.allSatisfy({ lowercased(bytes[less + 2 + $0]) == name[$0] }),
               isSpace(bytes[after]) || bytes[after] == UInt8(ascii: "/") || bytes[after] == UInt8(ascii: ">") {
                return less
            }
            index = less + 1
        }
        return nil
    }
}
