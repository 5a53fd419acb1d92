/// Small text operations on the parts of HTTP heads, without Foundation
/// (whose `trimmingCharacters` builds a character set on every call).
enum HTTPText {
    /// Optional white space in a header field: space and horizontal tab.
    static func isSpaceOrTab(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t"
    }

    /// What `CharacterSet.whitespaces` holds of ISO-8859-1: space, tab, no-break space.
    static func isLatin1Whitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\u{A0}"
    }

    /// `text` without the scalars `isTrimmed` picks at either end.
    static func trimmed(_ text: Substring, _ isTrimmed: (Unicode.Scalar) -> Bool) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return text[text.endIndex...] }
        return Substring(scalars[first...last])
    }

    /// Whether `bytes` are `lowercase` (ASCII letters compared without case).
    static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        bytes.count == lowercase.utf8.count
            && zip(bytes, lowercase.utf8).allSatisfy { byte, expected in
                (byte >= 65 && byte <= 90 ? byte + 32 : byte) == expected
            }
    }

    /// `bytes` without spaces and tabs at either end.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 }),
              let last = bytes.lastIndex(where: { $0 != 32 && $0 != 9 }) else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// Where the empty line that ends a head (CR LF CR LF) starts in `bytes`,
    /// looking from `start` on; nil while it has not come.
    static func endOfHead<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, from start: Int = 0) -> Int?
    where Bytes.Index == Int {
        var index = bytes.startIndex + start
        while index + 4 <= bytes.endIndex {
            // Every byte of the empty line is CR or LF: past any other, no match can span it.
            let last = bytes[index + 3]
            if last != 10 {
                index += last == 13 ? 1 : 4
            } else if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13 {
                return index - bytes.startIndex
            } else {
                index += 1
            }
        }
        return nil
    }

    /// The lines of `head`, split at each CR LF.
    static func lines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex, index = head.startIndex
        while index + 1 < head.endIndex {
            if head[index] == 13, head[index + 1] == 10 {
                lines.append(head[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(head[start...])
        return lines
    }
}
