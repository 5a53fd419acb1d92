import Foundation
import NavWatch
import NavWatchSupport

// The parts of a page's report: its redirects, error, timings, resources,
// console and page errors, late window, timeout and route.
extension PageLoadReport {
    /// One redirect on the way to the page.
    public struct Hop: Codable, Sendable, Equatable {
        /// The URL that redirected.
        public var url: String
        /// Its redirect status (301, 302, ...).
        public var status: Int
    }

    /// Why a page failed, as its `NavigationError` said.
    public struct ErrorInfo: Codable, Sendable, Equatable {
        /// What went wrong.
        public var kind: NavigationError.Kind
        /// The error's domain (`NavigationError.domain`; `navwatch-http` and
        /// `navwatch-guard` for the crawl's own requests and its guard).
        public var domain: String
        /// The error's code in its domain.
        public var code: Int
        /// The error's message.
        public var message: String

        /// The report's record of `error`.
        public init(_ error: NavigationError) {
            kind = error.kind
            domain = error.domain
            code = error.code
            message = error.message
        }
    }

    /// Milliseconds from the start of the navigation; null where unknown.
    public struct Timings: Codable, Sendable, Equatable {
        /// Time spent in redirects (Navigation Timing).
        public var redirect: Double?
        /// When the main response committed.
        public var commit: Double?
        /// Time to the document's first byte (Navigation Timing's `responseStart`).
        public var ttfb: Double?
        /// When `DOMContentLoaded` ended (Navigation Timing).
        public var domContentLoaded: Double?
        /// When the `load` event ended (Navigation Timing).
        public var load: Double?
        /// When the view said the page finished.
        public var finish: Double?
        /// When the page first painted content (Paint Timing).
        public var firstContentfulPaint: Double?
        /// Why a page loaded in a view has no `firstContentfulPaint`; nil when it has one
        /// or was not loaded in a view.
        public var firstContentfulPaintUnavailable: PaintUnavailable?

        /// Why a page has no first contentful paint. The raw values are the
        /// report's sentences.
        public enum PaintUnavailable: String, Codable, Sendable, CaseIterable {
            /// The engine reports no `paint` entries at all.
            case noPaintEntries = "this WebKit has no paint entries"
            /// The page was still on its view when its late window closed, and had painted no content.
            case noPaintInWindow = "the page painted no content before its late window closed"
            /// The view loaded the next page before the page painted content.
            case noPaintBeforeNextPage = "the view loaded the next page before this one painted content"
            /// The view closed (or its web process ended) before the page painted content.
            case noPaintBeforeViewClosed = "the view closed before the page painted content"
        }

        /// No timings: every one unknown.
        public init() {}

        enum CodingKeys: String, CodingKey {
            case redirect, commit, ttfb, load, finish
            case domContentLoaded = "dom_content_loaded"
            case firstContentfulPaint = "first_contentful_paint"
            case firstContentfulPaintUnavailable = "first_contentful_paint_unavailable"
        }

        /// Encodes every timing, writing an unknown one as null rather than leaving it out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(redirect, forKey: .redirect)
            try container.encode(commit, forKey: .commit)
            try container.encode(ttfb, forKey: .ttfb)
            try container.encode(domContentLoaded, forKey: .domContentLoaded)
            try container.encode(load, forKey: .load)
            try container.encode(finish, forKey: .finish)
            try container.encode(firstContentfulPaint, forKey: .firstContentfulPaint)
            try container.encode(firstContentfulPaintUnavailable, forKey: .firstContentfulPaintUnavailable)
        }
    }

    /// The page's requests, counted.
    public struct Resources: Codable, Sendable, Equatable {
        /// Requests and bytes of one resource type.
        public struct Weight: Codable, Sendable, Equatable {
            /// Requests of the type.
            public var count = 0
            /// Bytes they transferred.
            public var bytes = 0
        }

        /// Every request of the page, its document's included.
        public var count = 0
        /// Requests that failed.
        public var failed = 0
        /// Requests the private-address guard refused (no connection was made).
        public var blocked = 0
        /// Bytes that crossed the network: a request served from WebKit's
        /// cache adds none.
        public var transferBytes = 0
        /// Requests WebKit served from its cache (see `RequestRecord.fromCache`).
        public var fromCache = 0
        /// Per resource type (`document`, `image`, ...): requests and bytes
        /// transferred; types the page did not request are absent.
        public var byType: [String: Weight] = [:]

        enum CodingKeys: String, CodingKey {
            case count, failed, blocked
            case transferBytes = "transfer_bytes"
            case fromCache = "from_cache"
            case byType = "by_type"
        }

        /// No requests.
        public init() {}

        /// Decodes the counts; reports stored before `blocked`, `from_cache`
        /// and `by_type` were kept read them as 0 and empty.
        public init(from decoder: any Decoder) throws {
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
    public struct ConsoleCounts: Codable, Sendable, Equatable {
        /// Messages at level error.
        public var errors = 0
        /// Messages at level warning.
        public var warnings = 0

        /// Counts of `errors` and `warnings`.
        public init(errors: Int = 0, warnings: Int = 0) {
            self.errors = errors
            self.warnings = warnings
        }
    }

    /// One uncaught error or unhandled rejection of the page.
    public struct PageErrorInfo: Codable, Sendable, Equatable {
        /// The error's message (`TypeError: ...`, or the rejection's value).
        public var message: String
        /// The script it came from, when known.
        public var url: String?
        /// The line in `url`, when known.
        public var line: Int?
        /// When it arrived: milliseconds from when navwatch asked for the
        /// page, the clock of `timings.commit` and `timings.finish` (so it
        /// came after the load when above `timings.finish`); nil in reports
        /// stored before navwatch kept it.
        public var time: Double?

        /// An error with `message`, from `url` at `line`, at `time`.
        public init(message: String, url: String?, line: Int?, time: Double? = nil) {
            self.message = message
            self.url = url
            self.line = line
            self.time = time
        }

        /// The report's record of `error`, arrived at `time` on the page's clock.
        public init(_ error: PageError, at time: Duration?) {
            self.init(message: error.message, url: error.url?.absoluteString, line: error.line,
                      time: time?.milliseconds.tenths)
        }
    }

    /// One console message of level error or warning.
    public struct ConsoleMessageInfo: Codable, Sendable, Equatable {
        /// The levels a report lists.
        public enum Level: String, Codable, Sendable, CaseIterable {
            /// `console.error`, and the engine's errors.
            case error
            /// `console.warn`, and the engine's warnings.
            case warning

            /// The report's level of a console message of `level`; nil for
            /// the levels a report does not list (`debug`, `log`, `info`).
            public init?(_ level: ConsoleMessage.Level) {
                switch level {
                case .error: self = .error
                case .warning: self = .warning
                case .debug, .log, .info: return nil
                }
            }

            /// Decodes `error` or `warning`, and the console's `warn` that
            /// reports stored by 0.1.0 wrote for a warning.
            ///
            /// - Throws: `DecodingError` for any other text.
            public init(from decoder: any Decoder) throws {
                let text = try decoder.singleValueContainer().decode(String.self)
                // Reports stored by 0.1.0 wrote a warning's level as the console's `warn`.
                guard let level = Level(rawValue: text == "warn" ? "warning" : text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                            debugDescription: "not a console level: \(text)"))
                }
                self = level
            }
        }

        /// Its level.
        public var level: Level
        /// What it said.
        public var text: String
        /// The script, page or resource it came from, when known.
        public var url: String?
        /// The line in `url`, when known.
        public var line: Int?
        /// When it arrived, on the clock of `PageErrorInfo.time`.
        public var time: Double?

        /// A message at `level` saying `text`, from `url` at `line`, at `time`.
        public init(level: Level, text: String, url: String?, line: Int?, time: Double?) {
            self.level = level
            self.text = text
            self.url = url
            self.line = line
            self.time = time
        }
    }

    /// A JavaScript dialog the page opened, and its answer: no person sees
    /// it (`WebView.onDialog(_:)`; a crawl accepts every dialog).
    public struct DialogInfo: Codable, Sendable, Equatable {
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        public var type: String
        /// What it said.
        public var message: String
        /// `accepted` or `dismissed`.
        public var answer: String
        /// The text a prompt was answered with; nil for other dialogs and
        /// when it was dismissed.
        public var text: String?

        /// A dialog of `type` that said `message`, answered `answer` (with `text`, for a prompt).
        public init(type: String, message: String, answer: String, text: String? = nil) {
            (self.type, self.message, self.answer, self.text) = (type, message, answer, text)
        }

        /// The record of `dialog`, answered.
        public init(_ dialog: ScriptDialog) {
            type = dialog.kind.description
            message = dialog.message
            switch dialog.answer {
            case .acceptWithText(let given)?:
                answer = "accepted"
                text = dialog.kind == .prompt ? given : nil
            case .accept?, nil:
                answer = "accepted"
                text = dialog.kind == .prompt ? dialog.defaultText ?? "" : nil
            case .dismiss?:
                answer = "dismissed"
            }
        }
    }

    /// What happened after the page finished, until its late window closed
    /// (`LateWindow`): the counts are of what arrived after `timings.finish`
    /// and are included in the report's own counts and lists.
    public struct LateInfo: Codable, Sendable, Equatable {
        /// What closed a page's late window.
        public enum ClosedBy: String, Codable, Sendable, CaseIterable {
            /// The view had to load another page: every other view of its
            /// loader held a page whose window was open.
            case nextPage = "next-page"
            /// The page's own requests were quiet for the settle time.
            case quiet
            /// The view closed, or its web process ended.
            case viewClosed = "view-closed"
            /// Ten times the settle time passed without a quiet spell.
            case limit
        }

        /// How long the window stayed open after the page finished, in milliseconds.
        public var windowMs: Double
        /// What closed it.
        public var closedBy: ClosedBy
        /// Console errors that arrived after the finish.
        public var consoleErrors = 0
        /// Page errors that arrived after the finish.
        public var pageErrors = 0
        /// Requests that failed after the page finished.
        public var failedRequests = 0

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
    public struct TimeoutDetail: Codable, Sendable, Equatable {
        /// How far a navigation got: a timed-out one is `requested`,
        /// `provisional` or `committed` (never an end).
        public typealias Stage = PageLoadState.Stage

        /// How far it got: `requested` (not started), `provisional` (no
        /// response yet) or `committed` (the page still loading).
        public var stage: Stage
        /// The requests still pending, main resource included.
        public var pendingRequests: [String]

        enum CodingKeys: String, CodingKey {
            case stage
            case pendingRequests = "pending_requests"
        }
    }

    /// How a click reached a route in a page (`route` in the report).
    public struct RouteInfo: Codable, Sendable, Equatable {
        /// How the URL changed in the page: `push`, `replace` or `fragment`.
        public var reached: SameDocumentNavigation.Kind
        /// The page the click was on.
        public var from: String
        /// The element clicked: `button`, `li`, `a`, ...
        public var element: String
        /// The element's text, white space collapsed, 200 characters at most.
        public var text: String
        /// The document's title in the page after the click; nil when it had none.
        public var titleInPage: String?

        enum CodingKeys: String, CodingKey {
            case reached, from, element, text
            case titleInPage = "title_in_page"
        }

        init(_ link: PageLink) {
            reached = link.reached ?? .push
            from = link.source
            element = link.element
            text = link.text
            titleInPage = link.routeTitle
        }
    }

    /// What a rendered page's view emulated (`emulation` in the report):
    /// set when its viewport is not `WebViewConfiguration`'s default, or it
    /// has a User-Agent, a time zone, a device, a scale factor, a locale, a
    /// colour scheme or a reduced-motion setting of its own.
    public struct EmulationInfo: Codable, Sendable, Equatable {
        /// The viewport, `WIDTHxHEIGHT` in CSS pixels.
        public var viewport: String
        /// The device it emulates (`WebViewConfiguration.deviceName`); nil for none.
        public var device: String?
        /// The User-Agent it sends; nil for WebKit's own.
        public var userAgent: String?
        /// The time zone its pages see, an IANA name; nil for the system's.
        public var timeZone: String?
        /// Its `devicePixelRatio`; nil for 1.
        public var deviceScaleFactor: Int?
        /// The language its pages and requests have (`de-DE`); nil for WebKit's own.
        public var locale: String?
        /// The colour scheme its pages see; nil for GTK's own.
        public var colorScheme: ColorScheme?
        /// Whether its pages see reduced motion; nil for GTK's own.
        public var reducedMotion: ReducedMotion?

        enum CodingKeys: String, CodingKey {
            case viewport, device, locale
            case userAgent = "user_agent"
            case timeZone = "time_zone"
            case deviceScaleFactor = "device_scale_factor"
            case colorScheme = "color_scheme"
            case reducedMotion = "reduced_motion"
        }

        /// What `configuration` emulates; nil when it keeps every default.
        public init?(_ configuration: WebViewConfiguration) {
            let defaults = WebViewConfiguration()
            guard configuration.viewportWidth != defaults.viewportWidth
                || configuration.viewportHeight != defaults.viewportHeight
                || configuration.userAgent != nil || configuration.timeZone != nil || configuration.deviceName != nil
                || configuration.deviceScaleFactor != defaults.deviceScaleFactor || configuration.locale != nil
                || configuration.colorScheme != nil || configuration.reducedMotion != nil
            else { return nil }
            viewport = "\(configuration.viewportWidth)x\(configuration.viewportHeight)"
            device = configuration.deviceName
            userAgent = configuration.userAgent
            timeZone = configuration.timeZone
            deviceScaleFactor = configuration.deviceScaleFactor == defaults.deviceScaleFactor ? nil : configuration.deviceScaleFactor
            locale = configuration.locale
            colorScheme = configuration.colorScheme
            reducedMotion = configuration.reducedMotion
        }
    }
}
