/// HTML's character references (`&amp;`, `&#233;`, `&#x1F600;`), read as
/// the HTML standard's tokenizer reads them, in text and in attribute values.
enum CharacterReference {
    /// What the `&` at a position stands for.
    enum Reading: Equatable {
        /// The reference's text, and the position after it.
        case decoded(String, end: Int)
        /// The `&` is itself: no reference starts there.
        case literal
        /// A number past Unicode's last code point, which Gumbo reads modulo 2³²: not read here.
        case outOfRange
    }

    /// Reads the reference that starts with the `&` at `start` in `bytes`.
    /// `inAttribute`: in an attribute value, a named reference written
    /// without its `;` and followed by `=` or a letter or digit is left as written.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, inAttribute: Bool) -> Reading {
        let next = start + 1
        guard next < bytes.count else { return .literal }
        if bytes[next] == UInt8(ascii: "#") { return numeric(bytes, from: next + 1) }
        // The longest name in the table that the text starts with.
        var end = next
        while end < bytes.count, end - next < longestName, isAlphanumeric(bytes[end]) { end += 1 }
        guard end > next else { return .literal }
        let table = Self.table
        if end < bytes.count, bytes[end] == UInt8(ascii: ";"),
           let value = table[String(decoding: UnsafeBufferPointer(rebasing: bytes[next...end]), as: UTF8.self)] {
            return .decoded(value, end: end + 1)
        }
        var length = end - next
        while length > 1 {
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[next..<(next + length)]), as: UTF8.self)
            if let value = table[name] {
                let after = next + length
                if inAttribute, after < bytes.count, bytes[after] == UInt8(ascii: "=") || isAlphanumeric(bytes[after]) {
                    return .literal
                }
                return .decoded(value, end: after)
            }
            length -= 1
        }
        return .literal
    }

    /// `&#...` from `start` (after the `#`).
    private static func numeric(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Reading {
        var index = start
        var hex = false
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "x") {
            hex = true
            index += 1
        }
        let digitsStart = index
        var value: UInt32 = 0
        while index < bytes.count, let digit = digitValue(bytes[index], hex: hex) {
            value = min(value &* (hex ? 16 : 10) &+ digit, 0x110000)
            index += 1
        }
        guard index > digitsStart else { return .literal }
        guard value <= 0x10FFFF else { return .outOfRange }
        if index < bytes.count, bytes[index] == UInt8(ascii: ";") { index += 1 }
        return .decoded(String(Character(scalar(for: value))), end: index)
    }

    /// The character a numeric reference's value stands for.
    static func scalar(for value: UInt32) -> Unicode.Scalar {
        if value == 0 || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { return "\u{FFFD}" }
        if (0x80...0x9F).contains(value), let replaced = windows1252[value] { return Unicode.Scalar(replaced)! }
        return Unicode.Scalar(value)!
    }

    /// The C1 controls a reference names, read as windows-1252 (the HTML standard's table).
    private static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
        0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
        0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
        0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]

    private static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            || byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The longest name in the table, `;` aside.
    private static let longestName = 32

    /// `NamedCharacterReferences.table` read once: each name (with its `;`
    /// where written so) and its text.
    private static let table: [String: String] = {
        var table: [String: String] = [:]
        for entry in NamedCharacterReferences.table.split(separator: " ") {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            var text = String.UnicodeScalarView()
            for point in entry[entry.index(after: equals)...].split(separator: ",") {
                if let value = UInt32(point, radix: 16), let scalar = Unicode.Scalar(value) { text.append(scalar) }
            }
            table[String(entry[..<equals])] = String(text)
        }
        return table
    }()
}
