import Foundation
import NavWatch

/// What the crawler learnt about one URL it tried (or decided not to try).
/// Encodes to JSON with snake_case keys; see the README for the schema.
package struct PageLoadReport: Codable, Sendable, Equatable {
    package enum Outcome: String, Codable, Sendable, CaseIterable {
        /// Finished with an HTTP status below 400.
        case ok
        /// Finished with an HTTP status of 400 or more.
        case httpError = "http-error"
        case failed
        case timeout
        /// The web process crashed on every attempt.
        case crashed
        /// The response was a download; nothing was rendered or saved.
        case download
        /// Not loaded; `skipReason` says why.
        case skipped
        /// Not loaded: the crawl's private-address guard refused the address
        /// its host resolved to, no request reached it (`skipReason`
        /// `private-address`). `redirects` says how the page got there.
        case blocked
    }

    package enum SkipReason: String, Codable, Sendable {
        case robots, scope, maxDepth = "max-depth", maxPages = "max-pages", nonHTTP = "non-http"
        /// Matched an `ignore` pattern of the policy file: neither followed nor checked.
        case ignored
        case privateAddress = "private-address"
    }

    /// Whether the page was loaded (or checked) at all: not skipped, not blocked.
    package var wasLoaded: Bool { outcome != .skipped && outcome != .blocked }
    /// Whether a server answered with the page, whatever its status (`ok`
    /// or `http-error`): a crawl whose seeds all lack an answer never started.
    package var wasAnswered: Bool { outcome == .ok || outcome == .httpError }

    package struct Hop: Codable, Sendable, Equatable {
        package var url: String
        package var status: Int
    }

    package struct ErrorInfo: Codable, Sendable, Equatable {
        package var kind: String
        package var domain: String
        package var code: Int
        package var message: String

        package init(_ error: NavigationError) {
            kind = error.kind.rawValue
            domain = error.domain
            code = error.code
            message = error.message
        }
    }

    /// Milliseconds from the start of the navigation; null where unknown.
    package struct Timings: Codable, Sendable, Equatable {
        package var redirect: Double?
        package var commit: Double?
        package var ttfb: Double?
        package var domContentLoaded: Double?
        package var load: Double?
        package var finish: Double?
        package var firstContentfulPaint: Double?

        package init() {}

        enum CodingKeys: String, CodingKey {
            case redirect, commit, ttfb, load, finish
            case domContentLoaded = "dom_content_loaded"
            case firstContentfulPaint = "first_contentful_paint"
        }

        package func encode(to encoder: any Encoder) throws {
            // Unknown timings are written as null, not left out.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(redirect, forKey: .redirect)
            try container.encode(commit, forKey: .commit)
            try container.encode(ttfb, forKey: .ttfb)
            try container.encode(domContentLoaded, forKey: .domContentLoaded)
            try container.encode(load, forKey: .load)
            try container.encode(finish, forKey: .finish)
            try container.encode(firstContentfulPaint, forKey: .firstContentfulPaint)
        }
    }

    package struct Resources: Codable, Sendable, Equatable {
        /// Requests and bytes of one resource type.
        package struct Weight: Codable, Sendable, Equatable {
            package var count = 0
            package var bytes = 0
        }

        package var count = 0
        package var failed = 0
        /// Requests the private-address guard refused (no connection was made).
        package var blocked = 0
        /// Bytes that crossed the network: a request served from WebKit's
        /// cache adds none.
        package var transferBytes = 0
        /// Requests WebKit served from its cache (see `RequestRecord.fromCache`).
        package var fromCache = 0
        /// Per resource type (`document`, `image`, ...): requests and bytes
        /// transferred; types the page did not request are absent.
        package var byType: [String: Weight] = [:]

        enum CodingKeys: String, CodingKey {
            case count, failed, blocked
            case transferBytes = "transfer_bytes"
            case fromCache = "from_cache"
            case byType = "by_type"
        }

        package init() {}

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = try container.decode(Int.self, forKey: .count)
            failed = try container.decode(Int.self, forKey: .failed)
            // Reports stored before the private-address guard have no count.
            blocked = try container.decodeIfPresent(Int.self, forKey: .blocked) ?? 0
            transferBytes = try container.decode(Int.self, forKey: .transferBytes)
            // Reports stored before the memory cache was on have no count.
            fromCache = try container.decodeIfPresent(Int.self, forKey: .fromCache) ?? 0
            // Reports stored before per-type weights were kept have none.
            byType = try container.decodeIfPresent([String: Weight].self, forKey: .byType) ?? [:]
        }
    }

    /// How many console messages the page logged at level error and warning
    /// (console calls and the engine's own reports, such as resources that
    /// failed to load).
    package struct ConsoleCounts: Codable, Sendable, Equatable {
        package var errors = 0
        package var warnings = 0

        package init(errors: Int = 0, warnings: Int = 0) {
            self.errors = errors
            self.warnings = warnings
        }
    }

    /// One uncaught error or unhandled rejection of the page.
    package struct PageErrorInfo: Codable, Sendable, Equatable {
        package var message: String
        package var url: String?
        package var line: Int?
        /// When it arrived: milliseconds from when navwatch asked for the
        /// page, the clock of `timings.commit` and `timings.finish` (so it
        /// came after the load when above `timings.finish`); nil in reports
        /// stored before navwatch kept it.
        package var time: Double?

        package init(message: String, url: String?, line: Int?, time: Double? = nil) {
            self.message = message
            self.url = url
            self.line = line
            self.time = time
        }

        package init(_ error: PageError, at time: Duration?) {
            self.init(message: error.message, url: error.url?.absoluteString, line: error.line,
                      time: time?.milliseconds.tenths)
        }
    }

    /// One console message of level error or warning.
    package struct ConsoleMessageInfo: Codable, Sendable, Equatable {
        /// `error` or `warning`.
        package var level: String
        package var text: String
        package var url: String?
        package var line: Int?
        /// When it arrived, on the clock of `PageErrorInfo.time`.
        package var time: Double?

        package init(level: String, text: String, url: String?, line: Int?, time: Double?) {
            self.level = level
            self.text = text
            self.url = url
            self.line = line
            self.time = time
        }
    }

    /// What happened after the page finished, until its late window closed
    /// (`LateWindow`): the counts are of what arrived after `timings.finish`
    /// and are included in the report's own counts and lists.
    package struct LateInfo: Codable, Sendable, Equatable {
        /// How long the window stayed open after the page finished, in milliseconds.
        package var windowMs: Double
        /// `next-page`, `quiet`, `view-closed` or `limit` (`LateWindow.ClosedBy`).
        package var closedBy: String
        package var consoleErrors = 0
        package var pageErrors = 0
        /// Requests that failed after the page finished.
        package var failedRequests = 0

        enum CodingKeys: String, CodingKey {
            case windowMs = "window_ms"
            case closedBy = "closed_by"
            case consoleErrors = "console_errors"
            case pageErrors = "page_errors"
            case failedRequests = "failed_requests"
        }
    }

    /// How many page errors a report lists; `pageErrorCount` counts them all.
    package static let listedPageErrors = 5

    /// Where a timed-out navigation was when time ran out.
    package struct TimeoutDetail: Codable, Sendable, Equatable {
        /// `requested`, `provisional` (started, no response yet), `committed`
        /// (response received, page still loading).
        package var stage: String
        /// The requests still pending, main resource included.
        package var pendingRequests: [String]

        enum CodingKeys: String, CodingKey {
            case stage
            case pendingRequests = "pending_requests"
        }
    }

    package var url: String
    package var finalURL: String?
    package var redirects: [Hop] = []
    package var status: Int?
    package var mime: String?
    package var title: String?
    package var depth: Int
    package var parent: String?
    package var fetchedAt: Date
    package var outcome: Outcome
    package var skipReason: SkipReason?
    package var error: ErrorInfo?
    package var timings = Timings()
    /// What the engine's timing entries say beyond `timings`; nil for a page
    /// that did not finish (and in reports stored before navwatch kept them).
    package var metrics: PageMetrics?
    package var resources = Resources()
    package var links = 0
    package var attempts = 0
    package var timeout: TimeoutDetail?
    /// The page's console errors and warnings; nil for a page that was not
    /// loaded (and in reports stored before navwatch counted them).
    package var console: ConsoleCounts?
    /// The page's first `listedPageErrors` uncaught errors and unhandled
    /// rejections, in order; nil as for `console`.
    package var pageErrors: [PageErrorInfo]?
    /// How many there were in all.
    package var pageErrorCount: Int?
    /// The page's first `listedPageErrors` console messages of level error
    /// or warning, in order; nil as for `console`.
    package var consoleMessages: [ConsoleMessageInfo]?
    /// The page's late window; nil for a page that did not finish.
    package var late: LateInfo?
    /// Hosts of other sites the page requested from, sorted.
    package var thirdPartyHosts: [String]?
    /// The file name of the page's screenshot, in the crawl's screenshot directory.
    package var screenshot: String?
    /// When navwatch asked for the page (the last attempt's start).
    package var startedAt: Date?
    /// Set on a page the crawl first found in a sitemap.
    package var foundInSitemap: Bool?
    /// Set on a link outside the crawl's scope that was checked with a plain
    /// HTTP request instead of loaded: `HEAD`, or `GET` where HEAD was refused.
    package var checkedWith: String?
    /// What the crawl's page handler (or `--extract` script) returned for
    /// the page, as JSON; nil when there is none or it failed.
    package var data: JavaScriptValue?
    /// Why the page handler gave no value: what it threw, or that it timed out.
    package var handlerError: String?
    /// Every request of the page: stored beside the report, not in its JSON line.
    package var requests: [RequestRecord] = []
    /// Every element id and `<a name>` of the page, for fragment checks:
    /// stored beside the report, not in its JSON line.
    package var anchors: [String] = []

    enum CodingKeys: String, CodingKey {
        case url, redirects, status, mime, title, depth, parent, outcome, error, timings, metrics, resources, links, attempts, timeout
        case console
        case pageErrors = "page_errors"
        case pageErrorCount = "page_error_count"
        case consoleMessages = "console_messages"
        case late
        case thirdPartyHosts = "third_party_hosts"
        case screenshot
        case startedAt = "started_at"
        case foundInSitemap = "found_in_sitemap"
        case checkedWith = "checked_with"
        case finalURL = "final_url"
        case fetchedAt = "fetched_at"
        case skipReason = "skip_reason"
        case data
        case handlerError = "handler_error"
    }

    package init(url: String, depth: Int, parent: String?, fetchedAt: Date = Date(), outcome: Outcome) {
        self.url = url
        self.depth = depth
        self.parent = parent
        self.fetchedAt = fetchedAt
        self.outcome = outcome
    }

    /// The report of a frontier entry: its URL, depth, parent and whether a sitemap listed it.
    package init(_ entry: FrontierEntry, outcome: Outcome) {
        self.init(url: entry.url, depth: entry.depth, parent: entry.parent, outcome: outcome)
        if entry.kind == .sitemapPage { foundInSitemap = true }
    }

    package static func skipped(_ entry: FrontierEntry, _ reason: SkipReason) -> PageLoadReport {
        var report = PageLoadReport(entry, outcome: .skipped)
        report.skipReason = reason
        return report
    }

    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.date(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
            }
            return date
        }
        return decoder
    }()

    /// `date` as reports write it: ISO 8601 with milliseconds, in UTC (`Timestamp`).
    package static func timestamp(_ date: Date) -> String {
        Timestamp.string(date)
    }

    /// The screenshot file name for `url`: its host, port and path with every
    /// character but letters, digits, `.` and `-` made `_` (80 at most), then
    /// 16 hex digits of the URL's 64-bit FNV-1a hash, so that names never
    /// collide in practice.
    package static func screenshotName(for url: String) -> String {
        let readable = url.replacingOccurrences(of: "^[a-z]+://", with: "", options: .regularExpression)
        let safe = String(readable.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" }.prefix(80))
        return safe + "-" + String(FNV1a.hash(url.utf8), radix: 16).leftPadded(to: 16) + ".png"
    }

    /// `requests` as JSON, for the store's column beside the line; nil when there are none.
    package var requestsJSON: String? {
        guard !requests.isEmpty, let data = try? Self.encoder.encode(requests) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A stored report: its JSON line and its requests' JSON (nil: none).
    package init(json: String, requests: String?) throws {
        self = try Self.decoder.decode(PageLoadReport.self, from: Data(json.utf8))
        if let requests {
            self.requests = try Self.decoder.decode([RequestRecord].self, from: Data(requests.utf8))
        }
    }

    /// `anchors` for the store's column beside the line, one per line; nil when there are none.
    package var anchorsText: String? {
        anchors.isEmpty ? nil : anchors.joined(separator: "\n")
    }

    /// The anchors of the store's column.
    package static func anchors(fromText text: String?) -> Set<String> {
        Set(text.map { $0.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) } ?? [])
    }

    /// One line of JSON.
    package var jsonLine: String {
        String(decoding: (try? Self.encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

extension String {
    /// The string with zeros before it, `length` characters in all.
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}

extension Double {
    /// Milliseconds as reports keep them: to a tenth.
    package var tenths: Double {
        (self * 10).rounded() / 10
    }
}
