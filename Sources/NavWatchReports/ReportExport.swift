import Foundation
import NavWatch
import NavWatchCrawler

/// Reports as CSV (RFC 4180, the columns of `navwatch export --format csv`).
/// A report's JSON line is `PageLoadReport.jsonLine`; HAR is `HARWriter`.
public enum ReportExport {
    /// The columns of a report's CSV row, in order.
    public static let csvColumns = [
        "url", "final_url", "outcome", "skip_reason", "status", "mime", "title", "depth", "parent", "fetched_at",
        "error_kind", "error_message", "redirects", "commit_ms", "ttfb_ms", "dom_content_loaded_ms", "load_ms",
        "finish_ms", "first_contentful_paint_ms", "resources", "failed_resources", "transfer_bytes", "links", "attempts",
        "handler_error",
    ]

    /// The CSV columns of the pages' `data`: `data.KEY` for each key of an
    /// object, in the order first seen, and `data` when some page's data is
    /// not an object. A string is written as it is, a number and a boolean
    /// as JSON, an array or an object as compact JSON; null as nothing.
    public struct DataColumns: Sendable {
        private(set) var keys: [String] = []
        private var known: Set<String> = []
        private var whole = false

        /// No columns yet.
        public init() {}

        /// Adds the columns `data` (a page's `PageLoadReport.data`) needs.
        public mutating func add(_ data: JavaScriptValue?) {
            switch data {
            case nil, .undefined?, .null?: break
            case .object(let object)?:
                for key in object.keys.sorted() where known.insert(key).inserted { keys.append(key) }
            case _?: whole = true
            }
        }

        /// The columns' names, in order.
        public var names: [String] {
            (whole ? ["data"] : []) + keys.map { "data.\($0)" }
        }

        /// A page's fields in these columns, from its `data`.
        public func fields(_ data: JavaScriptValue?) -> [String?] {
            var object: [String: JavaScriptValue] = [:], value: JavaScriptValue?
            if case .object(let fields)? = data { object = fields } else { value = data }
            return (whole ? [value.flatMap(Self.field)] : []) + keys.map { object[$0].flatMap(Self.field) }
        }

        private static func field(_ value: JavaScriptValue) -> String? {
            switch value {
            case .undefined, .null: return nil
            case .string(let text): return text
            case .number(let number): return ReportExport.number(number)
            default: return String(decoding: (try? PageLoadReport.encoder.encode(value)) ?? Data(), as: UTF8.self)
            }
        }
    }

    /// A report's CSV fields, in the order of `csvColumns`.
    public static func csvFields(_ r: PageLoadReport) -> [String?] {
        [
            r.url, r.finalURL, r.outcome.rawValue, r.skipReason?.rawValue, r.status.map(String.init), r.mime, r.title,
            String(r.depth), r.parent, r.fetchedAt.formatted(.iso8601), r.error?.kind.rawValue, r.error?.message,
            String(r.redirects.count), number(r.timings.commit), number(r.timings.ttfb),
            number(r.timings.domContentLoaded), number(r.timings.load), number(r.timings.finish),
            number(r.timings.firstContentfulPaint), String(r.resources.count), String(r.resources.failed),
            String(r.resources.transferBytes), String(r.links), String(r.attempts), r.handlerError,
        ]
    }

    /// A whole number without decimals, any other as Swift writes it
    /// (`1e+300` from a page's `data` included: only a whole number of less
    /// than 10^15 is converted to an `Int`, which never traps).
    fileprivate static func number(_ value: Double?) -> String? {
        value.map { $0.magnitude < 1e15 && $0 == $0.rounded() ? String(Int($0)) : String($0) }
    }

    /// One RFC 4180 row (without its line break); nil fields are empty.
    ///
    /// No field holds a raw control character: C0 and C1 controls, DEL and
    /// bidirectional overrides and isolates are written as `TerminalText.inert`
    /// writes them (`\n`, `\r`, `\t`, `\u001b`, `\u009b`, `\u202e`), so a row is
    /// one line and a CSV printed on a terminal cannot drive it.
    ///
    /// A field that a spreadsheet would evaluate as a formula (it starts with
    /// `=`, `+`, `-` or `@`, and is not a plain number; a tab or a carriage
    /// return before one is escaped already) is written as text, a `'`
    /// before it and quoted, as OWASP advises against CSV injection: titles,
    /// link texts, URLs and `data` values are strangers' text. Numbers,
    /// negative ones included, stay numbers.
    public static func csvRow(_ fields: [String?]) -> String {
        fields.map { quote(TerminalText.inert($0 ?? "")) }.joined(separator: ",")
    }

    private static func quote(_ field: String) -> String {
        if let first = field.unicodeScalars.first, "=+-@".unicodeScalars.contains(first), !isPlainNumber(field) {
            return "\"'" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        guard field.contains(where: { $0 == "," || $0 == "\"" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `-12`, `+3.5`, `1e-7`: a sign, digits, a point and an exponent at most.
    private static func isPlainNumber(_ field: String) -> Bool {
        field.wholeMatch(of: /[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/) != nil
    }
}
