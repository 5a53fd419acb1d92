import Foundation
import NavWatch
import NavWatchSupport

/// What the crawler learnt about one URL it tried (or decided not to try).
/// Encodes to JSON with snake_case keys; NavWatchCLI.docc/Crawling.md lists the fields.
public struct PageLoadReport: Codable, Sendable, Equatable {
    /// How the page (or the check of a link) ended.
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        /// Finished with an HTTP status below 400.
        case ok
        /// Finished with an HTTP status of 400 or more.
        case httpError = "http-error"
        /// No answer: the error says why (DNS, refused, reset, TLS, ...).
        case failed
        /// Did not end within the crawl's timeout; `timeout` says where it was.
        case timeout
        /// The web process crashed on every attempt.
        case crashed
        /// The response was a download; nothing was rendered or saved.
        case download
        /// Not loaded; `skipReason` says why.
        case skipped
        /// Not loaded: the crawl's private-address guard refused the address
        /// its host resolved to, no request reached it (`skipReason`
        /// `private-address`); or it redirected to a scheme navwatch does
        /// not fetch (`skipReason` `non-http`, the error naming the target).
        /// `redirects` says how the page got there.
        case blocked
    }

    /// Why a link was not loaded.
    public enum SkipReason: String, Codable, Sendable {
        /// The site's robots.txt disallows it.
        case robots
        /// Outside the crawl's scope, and external links are not checked.
        case scope
        /// Deeper than `--max-depth`.
        case maxDepth = "max-depth"
        /// Found after `--max-pages` pages were loaded.
        case maxPages = "max-pages"
        /// Not an http or https URL.
        case nonHTTP = "non-http"
        /// Matched an `ignore` pattern of the policy file: neither followed nor checked.
        case ignored
        /// Its host resolved to a private address and the guard refused it
        /// (the outcome is `blocked`).
        case privateAddress = "private-address"
    }

    /// How a link outside the crawl's scope was checked instead of loaded.
    public enum CheckMethod: String, Codable, Sendable, CaseIterable {
        /// A `HEAD` request.
        case head = "HEAD"
        /// A `GET` request, where the server refused `HEAD`.
        case get = "GET"
        /// Not asked again: a recent check's answer, kept in the link cache
        /// or the baseline (`--recheck-after`).
        case cache
        /// Not asked again: the answer to the rendered page's own request for
        /// it, a resource the page embeds (an image, a style sheet, a script).
        case page
    }

    /// Why a page was, or was not, rendered in a web view (`RenderMode`).
    public enum RenderReason: String, Codable, Sendable, CaseIterable {
        /// Read from HTML: nothing on the page runs.
        case noScripts = "no-scripts"
        /// Read from HTML: renders of its kind agreed with their HTML.
        case sampleAgreed = "sample-agreed"
        /// Read from HTML: `RenderMode.never`.
        case never
        /// Read from HTML: not an HTML document (an image, a PDF, ...) or no answer.
        case notHTML = "not-html"
        /// Rendered: `RenderMode.always`.
        case always
        /// Rendered: one of the first pages of its kind.
        case sample
        /// Rendered: a spot check of a kind whose sample agreed.
        case spotCheck = "spot-check"
        /// Rendered: a render of its kind disagreed with its HTML.
        case kindDisagreed = "kind-disagreed"
        /// Rendered: the page navigates by itself (`<meta http-equiv="refresh">`).
        case metaRefresh = "meta-refresh"
        /// Rendered: the document declares an encoding other than UTF-8.
        case charset
        /// Rendered: too large or too deeply nested for the parser.
        case unparsed
    }

    /// The outcome of a page that answered with `status`: `ok` below 400,
    /// `http-error` from 400.
    package static func outcome(ofStatus status: Int) -> Outcome {
        status >= 400 ? .httpError : .ok
    }

    /// Whether the page was loaded (or checked) at all: not skipped, not blocked.
    public var wasLoaded: Bool { outcome != .skipped && outcome != .blocked }
    /// Whether a server answered with the page, whatever its status (`ok`
    /// or `http-error`): a crawl whose seeds all lack an answer never started.
    public var wasAnswered: Bool { outcome == .ok || outcome == .httpError }

    /// The URL the crawl tried, as its frontier keeps it.
    public var url: String
    /// Where the answer came from, after redirects, when it differs or is known.
    public var finalURL: String?
    /// The redirects on the way, in order.
    public var redirects: [Hop] = []
    /// The HTTP status of the answer; nil without one.
    public var status: Int?
    /// The answer's MIME type.
    public var mime: String?
    /// The document's title; nil when it has none or was not shown.
    public var title: String?
    /// Links followed from a seed to reach it (a seed: 0).
    public var depth: Int
    /// The page it was found on; nil for a seed.
    public var parent: String?
    /// When the report was made.
    public var fetchedAt: Date
    /// How it ended.
    public var outcome: Outcome
    /// Why it was not loaded, for `skipped` and `blocked`.
    public var skipReason: SkipReason?
    /// Why it failed, for `failed`, `timeout`, `crashed` and `blocked`.
    public var error: ErrorInfo?
    /// When things happened, in milliseconds from the start.
    public var timings = Timings()
    /// What the engine's timing entries say beyond `timings`; nil for a page
    /// that did not finish (and in reports stored before navwatch kept them).
    public var metrics: PageMetrics?
    /// The page's requests, counted.
    public var resources = Resources()
    /// The links the page has.
    public var links = 0
    /// How many times it was tried.
    public var attempts = 0
    /// Where a `timeout` was when time ran out.
    public var timeout: TimeoutDetail?
    /// The page's console errors and warnings; nil for a page that was not
    /// loaded (and in reports stored before navwatch counted them).
    public var console: ConsoleCounts?
    /// The page's first `listedPageErrors` uncaught errors and unhandled
    /// rejections, in order; nil as for `console`.
    public var pageErrors: [PageErrorInfo]?
    /// How many there were in all.
    public var pageErrorCount: Int?
    /// The page's first `listedPageErrors` console messages of level error
    /// or warning, in order; nil as for `console`.
    public var consoleMessages: [ConsoleMessageInfo]?
    /// The page's first `listedPageErrors` JavaScript dialogs, in order, with
    /// how each was answered; nil when it opened none.
    public var dialogs: [DialogInfo]?
    /// The page's late window; nil for a page that did not finish.
    public var late: LateInfo?
    /// Hosts of other sites the page requested from, sorted.
    public var thirdPartyHosts: [String]?
    /// The file name of the page's screenshot, in the crawl's screenshot directory.
    public var screenshot: String?
    /// When navwatch asked for the page (the last attempt's start).
    public var startedAt: Date?
    /// Set on a page the crawl first found in a sitemap.
    public var foundInSitemap: Bool?
    /// Set on a link outside the crawl's scope, or a resource a page embeds,
    /// that was checked with a plain HTTP request (or answered otherwise)
    /// instead of loaded.
    public var checkedWith: CheckMethod?
    /// Set on a resource a page of the crawl embeds (an image, a style
    /// sheet, a script, media), inside the scope or out: no page, only
    /// checked. Nil for pages and links.
    public var resource: Bool?
    /// Set on a link or a resource outside the crawl's scope, checked with
    /// a plain HTTP request (or skipped). Nil for what lies inside the scope.
    public var external: Bool?

    /// Whether this reports a page (or a link) rather than a resource a page embeds.
    public var isPage: Bool { resource != true }
    /// Whether this reports a link or resource outside the crawl's scope.
    /// Reports stored before `external` existed: a link checked with plain HTTP.
    package var isExternal: Bool { external ?? (checkedWith != nil && resource != true) }
    /// What the crawl's page handler (or `--extract` script) returned for
    /// the page, as JSON; nil when there is none or it failed.
    public var data: JavaScriptValue?
    /// Why the page handler gave no value: what it threw, or that it timed out.
    public var handlerError: String?
    /// Whether the page was rendered in a web view (true) or read from its
    /// HTML (false); nil in a crawl that renders every page (`RenderMode.always`).
    public var rendered: Bool?
    /// Why it was, or was not, rendered (NavWatchCLI.docc/CheckingLinks.md).
    public var renderReason: RenderReason?
    /// For a page read from its HTML whose HTML was not parsed
    /// (`RenderMode.never`): why its links were not read (larger than the
    /// parser takes, nested too deep). Nil for every other page.
    public var linksNotRead: String?
    /// For a route of a single-page app that a click reached in another page
    /// (`CrawlConfiguration.routeClicks`): how; the report itself is of its
    /// direct load. Nil for other pages, and for a route first reached in an
    /// earlier run of a resumed crawl.
    public var route: RouteInfo?
    /// With `CrawlConfiguration.routeClicks`: the requests the clicks on this
    /// page caused that the route explorer refused, as "METHOD URL" (a form's
    /// POST, a `fetch` that deletes, a beacon), the first 100; nil for none.
    public var refusedRequests: [String]?
    /// The network the page loaded over (`CrawlConfiguration.network`); nil
    /// for none. Its timings are what the page saw over it.
    public var network: NetworkProfile?
    /// What the view that rendered the page emulated (its viewport, device,
    /// User-Agent, time zone); nil for a page read from its HTML, and for
    /// one rendered with every default.
    public var emulation: EmulationInfo?
    /// With repeated loads (`CrawlConfiguration.runs`): each load's timings,
    /// the first being the load the rest of the report describes. `timings`
    /// then holds each timing's median over them, and `spread` how they
    /// varied. Nil for a page loaded once.
    public var runs: [Timings]?
    /// How the timings of `runs` varied; nil for a page loaded once.
    public var spread: TimingSpread?
    /// Every request of the page: stored beside the report, not in its JSON line.
    public var requests: [RequestRecord] = []
    /// Every element id and `<a name>` of the page, for fragment checks:
    /// stored beside the report, not in its JSON line.
    public var anchors: [String] = []

    enum CodingKeys: String, CodingKey {
        case url, redirects, status, mime, title, depth, parent, outcome, error, timings, metrics, resources, links, attempts, timeout
        case console
        case pageErrors = "page_errors"
        case pageErrorCount = "page_error_count"
        case consoleMessages = "console_messages"
        case dialogs
        case late
        case thirdPartyHosts = "third_party_hosts"
        case screenshot
        case startedAt = "started_at"
        case foundInSitemap = "found_in_sitemap"
        case checkedWith = "checked_with"
        case resource, external
        case finalURL = "final_url"
        case fetchedAt = "fetched_at"
        case skipReason = "skip_reason"
        case data
        case handlerError = "handler_error"
        case rendered
        case renderReason = "render_reason"
        case linksNotRead = "links_not_read"
        case refusedRequests = "refused_requests"
        case route, network, emulation, runs, spread
    }

    /// A report of `url`, found at `depth` on `parent`, with `outcome` and nothing else known.
    public init(url: String, depth: Int, parent: String?, fetchedAt: Date = Date(), outcome: Outcome) {
        self.url = url
        self.depth = depth
        self.parent = parent
        self.fetchedAt = fetchedAt
        self.outcome = outcome
    }

    /// The report of a frontier entry: its URL, depth, parent, whether a
    /// sitemap listed it, whether it is a resource a page embeds and whether
    /// it lies outside the scope.
    package init(_ entry: FrontierEntry, outcome: Outcome, fetchedAt: Date = Date()) {
        self.init(url: entry.url, depth: entry.depth, parent: entry.parent, fetchedAt: fetchedAt, outcome: outcome)
        if entry.kind == .sitemapPage { foundInSitemap = true }
        if entry.kind.isResource { resource = true }
        if entry.kind.isOutside { external = true }
    }

    /// The report of `entry`, skipped for `reason` at `date`.
    package static func skipped(_ entry: FrontierEntry, _ reason: SkipReason, at date: Date = Date()) -> PageLoadReport {
        var report = PageLoadReport(entry, outcome: .skipped, fetchedAt: date)
        report.skipReason = reason
        return report
    }

    /// The encoder of a report's JSON line, and of every JSON output of
    /// navwatch (`JSONText`): keys sorted, slashes unescaped, dates as
    /// `Timestamp` strings.
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
    public static func screenshotName(for url: String) -> String {
        let readable = url.replacingOccurrences(of: "^[a-z]+://", with: "", options: .regularExpression)
        let safe = String(readable.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" }.prefix(80))
        return safe + "-" + String(FNV1a.hash(url.utf8), radix: 16).leftPadded(to: 16) + ".png"
    }

    /// `url` as reports write a final URL: canonical where it has a canonical form.
    static func canonical(_ url: URL) -> String {
        URLCanonicalizer.canonical(url)?.absoluteString ?? url.absoluteString
    }

    /// The URLs this report answers for besides its own: its redirect hops
    /// and final URL, as crawl keys.
    package var aliases: [String] {
        ([finalURL].compactMap { $0 } + redirects.map(\.url)).compactMap(URLCanonicalizer.key).filter { $0 != url }
    }

    /// `requests` as JSON, for the store's column beside the line; nil when there are none.
    package var requestsJSON: String? {
        guard !requests.isEmpty, let data = try? Self.encoder.encode(requests) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A stored report: its JSON line and its requests' JSON (nil: none).
    package init(json: String, requests: String?) throws {
        if requests == nil, let skipped = SkippedReportJSON.report(fromLine: json) {
            self = skipped
            return
        }
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
        guard let text else { return [] }
        // Split as bytes: a split by `Character` takes most of the time of reading a crawl's link graph.
        let pieces = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        var anchors = Set<String>(minimumCapacity: pieces.count)
        for piece in pieces { anchors.insert(String(Substring(piece))) }
        return anchors
    }

    /// The page's `data` decoded as `T` (the type its page handler
    /// returned); nil when it has none.
    ///
    /// - Throws: `DecodingError` when the data does not decode as `T`.
    public func data<T: Decodable>(as type: T.Type) throws -> T? {
        guard let data else { return nil }
        return try Self.decoder.decode(T.self, from: Self.encoder.encode(data))
    }

    /// One line of JSON.
    public var jsonLine: String {
        SkippedReportJSON.line(of: self) ?? jsonLine(by: Self.encoder)
    }

    /// The report as one line of JSON, as `encoder` writes it.
    func jsonLine(by encoder: JSONEncoder) -> String {
        String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
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
