import Foundation

/// One limit a budget can set on a page, and how a report measures it.
package enum BudgetMetric: Hashable, Sendable, Comparable {
    /// `timings.load` (the load event's end), in milliseconds.
    case loadMs
    /// `timings.first_contentful_paint`, in milliseconds.
    case fcpMs
    /// `metrics.largest_contentful_paint.time`, in milliseconds, where the engine has it.
    case lcpMs
    /// `resources.transfer_bytes`.
    case bytes
    /// `resources.by_type[type].bytes`.
    case bytesOfType(String)
    /// `resources.count`.
    case requests
    /// `console.errors`.
    case consoleErrors
    /// `page_error_count`.
    case pageErrors

    /// The metrics a `[[budget]]` table names by one key, by that key.
    package static let byKey: [String: BudgetMetric] = [
        "load_ms": .loadMs, "fcp_ms": .fcpMs, "lcp_ms": .lcpMs, "bytes": .bytes, "requests": .requests,
        "console_errors": .consoleErrors, "page_errors": .pageErrors,
    ]

    /// The key a budget file names it by: `load_ms`, `bytes_by_type.script`, ...
    package var key: String {
        switch self {
        case .loadMs: return "load_ms"
        case .fcpMs: return "fcp_ms"
        case .lcpMs: return "lcp_ms"
        case .bytes: return "bytes"
        case .bytesOfType(let type): return "bytes_by_type.\(type)"
        case .requests: return "requests"
        case .consoleErrors: return "console_errors"
        case .pageErrors: return "page_errors"
        }
    }

    /// Its unit, as listings print it after a value.
    package var unit: String {
        switch self {
        case .loadMs, .fcpMs, .lcpMs: return "ms"
        case .bytes, .bytesOfType: return "bytes"
        case .requests: return "requests"
        case .consoleErrors: return "console errors"
        case .pageErrors: return "page errors"
        }
    }

    /// `value` with its unit, as listings print it: `2345.6 ms`, `1200 bytes`, `3`.
    package func shown(_ value: Double) -> String {
        let number = value.magnitude < 1e15 && value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
        return unit == "ms" || unit == "bytes" ? "\(number) \(unit)" : number
    }

    /// What `report` measured; nil where it measured nothing (no load event,
    /// no paint, an engine without LCP). A type the page did not request weighs 0.
    package func measured(in report: PageLoadReport) -> Double? {
        switch self {
        case .loadMs: return report.timings.load
        case .fcpMs: return report.timings.firstContentfulPaint
        case .lcpMs: return report.metrics?.largestContentfulPaint?.time
        case .bytes: return Double(report.resources.transferBytes)
        case .bytesOfType(let type): return Double(report.resources.byType[type]?.bytes ?? 0)
        case .requests: return Double(report.resources.count)
        case .consoleErrors: return report.console.map { Double($0.errors) }
        case .pageErrors: return report.pageErrorCount.map(Double.init)
        }
    }

    package static func < (lhs: BudgetMetric, rhs: BudgetMetric) -> Bool { lhs.order < rhs.order }

    private var order: (Int, String) {
        switch self {
        case .loadMs: return (0, "")
        case .fcpMs: return (1, "")
        case .lcpMs: return (2, "")
        case .bytes: return (3, "")
        case .bytesOfType(let type): return (4, type)
        case .requests: return (5, "")
        case .consoleErrors: return (6, "")
        case .pageErrors: return (7, "")
        }
    }
}

/// One `[[budget]]` of a budget file: limits for the pages whose URL its
/// pattern matches, loaded over its network.
package struct Budget: Sendable {
    /// The regular expression as written; nil matches every page.
    package var pattern: String?
    /// The name of the network profile of the pages it applies to
    /// (`PageLoadReport.network`); nil: pages over any network or none.
    package var network: String?
    package var limits: [BudgetMetric: Double]
    /// Its place in the file, from 1.
    package var number: Int
    private let expression: NSRegularExpression?

    package init(pattern: String?, network: String? = nil, limits: [BudgetMetric: Double], number: Int) throws {
        self.pattern = pattern
        self.network = network
        self.limits = limits
        self.number = number
        expression = try pattern.map { try NSRegularExpression(pattern: $0) }
    }

    /// Whether the pattern is found in the report's URL (anywhere: anchor it
    /// with `^` and `$`) and it loaded over the budget's network.
    package func matches(_ report: PageLoadReport) -> Bool {
        if let network, network != report.network?.name { return false }
        guard let expression else { return true }
        let url = report.url
        return expression.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
    }
}

/// One limit a page went over. Encodes as `{"url", "budget", "measured", "limit", "pattern"}`.
package struct BudgetBreach: Encodable, Sendable, Equatable {
    package var url: String
    package var metric: BudgetMetric
    package var measured: Double
    package var limit: Double
    /// The pattern of the `[[budget]]` that set the limit; nil for one without.
    package var pattern: String?

    /// The key of the limit (`load_ms`, `bytes_by_type.script`, ...).
    package var budget: String { metric.key }

    /// One line: `load_ms: 2345.6 ms > 1000 ms`.
    package var line: String { "\(budget): \(metric.shown(measured)) > \(metric.shown(limit))" }

    private enum CodingKeys: String, CodingKey {
        case url, budget, measured, limit, pattern
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(budget, forKey: .budget)
        try container.encode(measured, forKey: .measured)
        try container.encode(limit, forKey: .limit)
        try container.encodeIfPresent(pattern, forKey: .pattern)
    }
}
