import Foundation
import NavWatchCrawler

/// JSON as every JSON output of navwatch writes it, reports and listings
/// alike: keys sorted, slashes unescaped, dates as `Timestamp` strings
/// (`PageLoadReport.encoder`).
package enum JSONText {
    /// `value` as one JSON text, without a line break; `{}` when it cannot
    /// be encoded (a value that is not a finite number).
    package static func of(_ value: some Encodable) -> String {
        String(decoding: (try? PageLoadReport.encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
