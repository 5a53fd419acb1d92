import Foundation

/// The `Retry-After` header field (RFC 9110 §10.2.3).
package enum RetryAfter {
    /// Seconds to wait from `now`: the field is delta-seconds or an HTTP date
    /// (IMF-fixdate, or the obsolete RFC 850 and asctime forms). Never
    /// negative; nil when the value is neither.
    package static func seconds(from value: String, now: Date = Date()) -> Double? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.allSatisfy(\.isASCIIDigit) {
            return Double(value).map { max(0, $0) }
        }
        let date = value.split(separator: " ").joined(separator: " ")  // asctime pads the day with a space
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: date) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }

    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",   // Sun, 06 Nov 1994 08:49:37 GMT
        "EEEE, dd-MMM-yy HH:mm:ss zzz",    // Sunday, 06-Nov-94 08:49:37 GMT
        "EEE MMM d HH:mm:ss yyyy",         // Sun Nov  6 08:49:37 1994
    ]
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
