import Foundation
import Glibc

/// The time format of reports and HAR files: ISO 8601 in UTC with
/// milliseconds (`2026-11-24T04:53:00.123Z`). Written and read by hand: the
/// `ISO8601DateFormatter` that wrote it before goes through ICU, at several
/// microseconds a call, twice a report. `string` writes exactly what that
/// formatter (`.withInternetDateTime`, `.withFractionalSeconds`) writes, to the
/// nearest millisecond;
/// `date` reads it, and hands any other ISO 8601 text to that formatter.
package enum Timestamp {
    /// `date` in the format.
    package static func string(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        var seconds = time_t((milliseconds / 1000).rounded(.down))
        let millisecond = Int(milliseconds - Double(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int, digits: Int, then separator: UInt8?) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
            if let separator { bytes.append(separator) }
        }
        append(Int(parts.tm_year) + 1900, digits: 4, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, digits: 2, then: UInt8(ascii: "-"))
        append(Int(parts.tm_mday), digits: 2, then: UInt8(ascii: "T"))
        append(Int(parts.tm_hour), digits: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_min), digits: 2, then: UInt8(ascii: ":"))
        append(Int(parts.tm_sec), digits: 2, then: UInt8(ascii: "."))
        append(millisecond, digits: 3, then: UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date `text` gives; nil when it is no ISO 8601 date and time.
    package static func date(_ text: String) -> Date? {
        fast(text) ?? formatter.date(from: text)
    }

    /// Reads exactly `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    private static func fast(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                  bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                  bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z") else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let byte = bytes[index]
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                  let millisecond = number(20..<23),
                  (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            let seconds = timegm(&parts)
            // timegm normalises a day that does not exist (Feb 30): refuse it.
            guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
            return Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1000)
        }
    }

    /// For text in another ISO 8601 form. Shared across threads without a
    /// lock: ISO8601DateFormatter is thread-safe once configured (it is
    /// never changed after this initialiser), though not marked Sendable.
    nonisolated(unsafe) private static let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
