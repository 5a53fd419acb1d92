import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The character encoding of a document's bytes, and their conversion to
/// UTF-8, the one encoding Gumbo reads.
///
/// Which encoding, as a browser decides (the HTML standard's "encoding
/// sniffing", without guessing from the content): a byte-order mark, then
/// the `charset` of the `Content-Type`, then the document's own
/// `<meta charset>` or `<meta http-equiv="content-type">`, else UTF-8.
/// Labels are the Encoding Standard's: `latin1`, `iso-8859-1` and `ascii`
/// name windows-1252, `utf-16` names UTF-16LE, `shift_jis` is Microsoft's
/// code page 932; a `<meta>` that names UTF-16 means UTF-8 (the bytes that
/// declared it were ASCII). The conversion is glibc's `iconv`; a byte
/// sequence the encoding does not allow becomes U+FFFD, as a browser shows it.
package struct CharacterEncoding: Sendable, Hashable {
    /// The label as the document or server gave it, lower-cased.
    package let label: String
    /// What `iconv` calls it; nil for UTF-8.
    let iconvName: String?

    /// Whether it is UTF-16, of either byte order.
    package var isUTF16: Bool { iconvName?.hasPrefix("UTF-16") ?? false }

    /// UTF-8, the default.
    package static let utf8 = CharacterEncoding(label: "utf-8", iconvName: nil)

    private init(label: String, iconvName: String?) {
        (self.label, self.iconvName) = (label, iconvName)
    }

    /// The encoding `label` names; nil for a label this machine's `iconv`
    /// cannot convert from (or `replacement` and `x-user-defined`).
    package init?(label: String) {
        let label = label.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            .trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        if Self.utf8Labels.contains(label) {
            self = .utf8
            return
        }
        let name = Self.iconvNames[label] ?? label.uppercased()
        guard !label.isEmpty, label.unicodeScalars.allSatisfy({ $0.isASCII }), Self.canConvert(from: name) else { return nil }
        (self.label, self.iconvName) = (label, name)
    }

    /// The encoding of `bytes` and the length of the byte-order mark it
    /// starts with, if it starts with one.
    package static func byteOrderMark(of bytes: [UInt8]) -> (encoding: CharacterEncoding, length: Int)? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (CharacterEncoding(label: "utf-16be", iconvName: "UTF-16BE"), 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (CharacterEncoding(label: "utf-16le", iconvName: "UTF-16LE"), 2) }
        return nil
    }

    /// `bytes` in UTF-8; nil when `iconv` fails for a reason other than the input.
    package func utf8Bytes(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard let iconvName else { return Array(bytes) }
        let converter = iconv_open("UTF-8", iconvName)
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = Array(bytes)
        var output = [UInt8](repeating: 0, count: max(64, input.count * 3 + 16))
        var produced = 0
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
            var inPointer = source.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }
            var inLeft = source.count
            while true {
                let ended = inLeft == 0
                let result = output.withUnsafeMutableBufferPointer { target -> Int in
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(target.baseAddress! + produced)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = target.count - produced
                    // With no input left, flushes the converter's state.
                    let result = ended ? iconv(converter, nil, nil, &outPointer, &outLeft)
                                       : iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                    produced = target.count - outLeft
                    return result
                }
                if result != -1 {
                    if ended { break }
                    continue
                }
                switch errno {
                case E2BIG:
                    output += [UInt8](repeating: 0, count: output.count)
                case EILSEQ, EINVAL:
                    // A sequence the encoding does not allow, or one cut off at the end.
                    if output.count - produced < replacement.count { output += [UInt8](repeating: 0, count: output.count) }
                    output.replaceSubrange(produced..<produced + replacement.count, with: replacement)
                    produced += replacement.count
                    let skip = isUTF16 ? min(2, inLeft) : 1
                    inPointer = inPointer.map { $0 + skip }
                    inLeft -= skip
                default:
                    return nil
                }
            }
            return Array(output[..<produced])
        }
    }

    private static let utf8Labels: Set<String> = ["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8",
                                                  "x-unicode20utf8"]

    /// Encoding Standard labels whose encoding `iconv` knows under another name.
    private static let iconvNames: [String: String] = {
        var names: [String: String] = [:]
        for label in ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
                      "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii",
                      "windows-1252", "x-cp1252"] {
            names[label] = "WINDOWS-1252"
        }
        for label in ["utf-16", "utf-16le", "csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff"] {
            names[label] = "UTF-16LE"
        }
        for label in ["utf-16be", "unicodefffe"] { names[label] = "UTF-16BE" }
        for label in ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"] {
            names[label] = "CP932"
        }
        for label in ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58",
                      "x-gbk", "gb18030"] {
            names[label] = "GB18030"
        }
        for label in ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"] { names[label] = "BIG5-HKSCS" }
        for label in ["cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989",
                      "ksc5601", "ksc_5601", "windows-949"] {
            names[label] = "CP949"
        }
        for label in ["iso-8859-9", "iso8859-9", "latin5", "l5", "windows-1254"] { names[label] = "WINDOWS-1254" }
        for label in ["iso-8859-11", "tis-620", "windows-874", "dos-874"] { names[label] = "CP874" }
        for label in ["x-user-defined", "replacement", "csiso2022kr", "iso-2022-kr", "hz-gb-2312", "iso-2022-cn",
                      "iso-2022-cn-ext"] {
            names[label] = ""  // no conversion: not an encoding navwatch reads
        }
        return names
    }()

    private static func canConvert(from name: String) -> Bool {
        guard !name.isEmpty else { return false }
        let converter = iconv_open("UTF-8", name)
        guard converter != iconv_t(bitPattern: -1) else { return false }
        iconv_close(converter)
        return true
    }
}
