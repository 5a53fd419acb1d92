import Foundation
import NavWatch

/// One request a page made, as stored beside its report and exported as a
/// HAR entry. A redirect is a record of its own whose `redirectURL` names
/// the next request. Times are milliseconds; -1 where unknown.
public struct RequestRecord: Codable, Sendable, Equatable {
    /// What the request was for, from `Sec-Fetch-Dest` (or the MIME type).
    public enum ResourceType: String, Codable, Sendable, CaseIterable {
        /// A page or frame's document.
        case document
        /// A style sheet.
        case stylesheet
        /// A script, a worker's included.
        case script
        /// An image or icon.
        case image
        /// A web font.
        case font
        /// A `fetch` or `XMLHttpRequest` (destination `empty`).
        case fetch
        /// Audio, video or a text track.
        case media
        /// Anything else (a manifest, an object, a beacon).
        case other
    }

    /// The phases of a request, as HAR 1.2 defines them; -1 where the engine
    /// gives nothing. `connect` includes `ssl`.
    public struct Timings: Codable, Sendable, Equatable {
        /// Waiting for a connection to be free.
        public var blocked: Double = -1
        /// Resolving the host name.
        public var dns: Double = -1
        /// Opening the connection, TLS included.
        public var connect: Double = -1
        /// The TLS handshake.
        public var ssl: Double = -1
        /// Sending the request.
        public var send: Double = 0
        /// Waiting for the first byte of the response.
        public var wait: Double = 0
        /// Reading the response.
        public var receive: Double = 0

        /// The sum of the known phases (`ssl` is inside `connect`).
        public var total: Double {
            [blocked, dns, connect, send, wait, receive].filter { $0 >= 0 }.reduce(0, +)
        }
    }

    /// The URL asked for.
    public var url: String
    /// The HTTP method (`GET`, `POST`, ...).
    public var method: String
    /// What the request was for.
    public var type: ResourceType
    /// The HTTP status; nil when no response came.
    public var status: Int?
    /// The status's reason phrase (`OK`, `Not Found`); nil when no response came.
    public var statusText: String?
    /// The response's MIME type; nil when no response came.
    public var mime: String?
    /// The request's headers, as WebKit sent them.
    public var requestHeaders: [HTTPHeader]
    /// The response's headers; empty when no response came.
    public var responseHeaders: [HTTPHeader]
    /// Bytes on the wire, headers included; nil when unknown.
    public var transferBytes: Int?
    /// The body as received (before decoding); nil when unknown.
    public var encodedBytes: Int?
    /// The body after decoding; nil when unknown.
    public var bodyBytes: Int?
    /// When it started, since the navigation started.
    public var startMs: Double
    /// How long each phase took.
    public var timings: Timings
    /// For a redirect, where it pointed.
    public var redirectURL: String?
    /// For a failed request, the kind of failure.
    public var error: NavigationError.Kind?
    /// Still waiting for an answer when the report was made: the page timed
    /// out, or a finished page never finished it (a long poll).
    public var pending: Bool
    /// Served from WebKit's cache, no byte crossing the network (then
    /// `transferBytes` is 0). Said only where the page's Resource Timing may
    /// show the request's sizes (an http or https request of the document's
    /// own origin, or one whose `Timing-Allow-Origin` allows that origin);
    /// nil elsewhere, where the sizes are hidden and cannot tell.
    public var fromCache: Bool?

    enum CodingKeys: String, CodingKey {
        case url, method, type, status, mime, timings, error, pending
        case statusText = "status_text"
        case requestHeaders = "request_headers"
        case responseHeaders = "response_headers"
        case transferBytes = "transfer_bytes"
        case encodedBytes = "encoded_bytes"
        case bodyBytes = "body_bytes"
        case startMs = "start_ms"
        case redirectURL = "redirect_url"
        case fromCache = "from_cache"
    }

    /// The phases' sum.
    public var timeMs: Double { timings.total }
}

extension RequestRecord {
    /// The records of a page's requests, in the order they started: the
    /// events' facts (method, headers, statuses, redirects, failures) joined
    /// with the page's Resource Timing (phases and sizes) by URL. Requests
    /// Resource Timing does not know (failed, pending, or not yet over) are
    /// timed by `loadStart`-relative event times, and `now` for pending ones.
    /// The requests are `state.reportedRequests`.
    package static func records(of state: PageLoadState, facts: PageFacts?, now: Duration) -> [RequestRecord] {
        // Resource Timing entries by name, each name's in the order they started.
        var unmatched: [String: ArraySlice<PageFacts.Timing>] = [:]
        for timing in facts?.resources ?? [] { unmatched[timing.name, default: []].append(timing) }
        func take(_ name: String) -> PageFacts.Timing? {
            unmatched[name]?.popFirst()
        }
        var records: [RequestRecord] = []
        let document = state.response?.url ?? state.navigation.url
        for request in state.reportedRequests {
            let timing = request.id == state.mainResourceID
                ? facts?.navigation
                : take(request.requestedURL.absoluteString) ?? take(request.url.absoluteString)
            records += Self.records(of: request, timing: timing, document: document, now: now)
        }
        return records
    }

    /// The one record a report stored without its requests (by an earlier
    /// version) can give: its document, timed by the report's own timings.
    package static func document(of report: PageLoadReport) -> RequestRecord {
        var timings = Timings()
        timings.wait = report.timings.ttfb ?? report.timings.commit ?? 0
        timings.receive = max(0, (report.timings.finish ?? timings.wait) - timings.wait)
        return RequestRecord(
            url: report.url, method: "GET", type: .document, status: report.status,
            statusText: report.status.map(HTTPStatus.reason), mime: report.mime, requestHeaders: [], responseHeaders: [],
            transferBytes: nil, encodedBytes: nil, bodyBytes: nil, startMs: 0, timings: timings,
            redirectURL: report.finalURL != report.url ? report.finalURL : nil, error: report.error?.kind, pending: false)
    }

    private static func records(of request: PageLoadState.Request, timing: PageFacts.Timing?, document: URL,
                                now: Duration) -> [RequestRecord] {
        let type = ResourceType(request, initiator: timing?.initiatorType)
        let method = request.method ?? "GET"
        let eventStart = request.startedAt.map(\.milliseconds) ?? 0
        var records: [RequestRecord] = []
        // Each redirect spans from the request (or the redirect before) to its answer, by event times.
        var hopStart = timing.map { $0.startTime } ?? eventStart
        for (index, hop) in request.redirects.enumerated() {
            let answered = hop.at.map(\.milliseconds) ?? hopStart
            var timings = Timings()
            timings.wait = max(0, answered - hopStart).tenths
            records.append(RequestRecord(
                url: hop.url.absoluteString, method: method, type: type, status: hop.status,
                statusText: HTTPStatus.reason(hop.status), mime: nil, requestHeaders: request.requestHeaders,
                responseHeaders: hop.headers, transferBytes: nil, encodedBytes: nil, bodyBytes: nil, startMs: hopStart.tenths,
                timings: timings, redirectURL: hopTarget(request, after: index).absoluteString, error: nil, pending: false))
            hopStart = max(hopStart, answered)
        }
        var final = RequestRecord(
            url: request.url.absoluteString, method: method, type: type, status: request.status.flatMap { $0 > 0 ? $0 : nil },
            statusText: request.status.flatMap { $0 > 0 ? HTTPStatus.reason($0) : nil }, mime: request.mimeType,
            requestHeaders: request.requestHeaders, responseHeaders: request.responseHeaders,
            transferBytes: nil, encodedBytes: nil, bodyBytes: nil, startMs: hopStart.tenths, timings: Timings(),
            redirectURL: nil, error: request.error?.kind, pending: !request.isEnded)
        if let timing, request.isEnded, request.error == nil {
            // After redirects, Resource Timing's fetch of the final URL starts at fetchStart.
            let from = request.redirects.isEmpty || timing.fetchStart <= 0 ? timing.startTime : timing.fetchStart
            final.startMs = from.tenths
            final.timings = Self.timings(timing, from: from)
            final.fromCache = sizesVisible(request, document: document) ? timing.transferSize == 0 : nil
            final.transferBytes = timing.transferSize > 0 ? Int(timing.transferSize) : final.fromCache == true ? 0 : nil
            final.encodedBytes = timing.encodedBodySize > 0 ? Int(timing.encodedBodySize) : nil
            final.bodyBytes = timing.decodedBodySize > 0 ? Int(timing.decodedBodySize) : nil
        } else {
            // navwatch's own times: from the request's (last) start to its end, or to now while pending.
            let end = request.endedAt.map(\.milliseconds) ?? now.milliseconds
            let begin = request.redirects.isEmpty ? eventStart : hopStart
            final.timings.wait = max(0, end - begin).tenths
        }
        records.append(final)
        return records
    }

    /// Whether the document's Resource Timing shows `request`'s sizes: an
    /// http or https request of the document's origin, or one whose
    /// response allows the document's origin with `Timing-Allow-Origin`
    /// (`*` or that origin; a cross-origin entry without it has every size
    /// 0, fetched or not).
    private static func sizesVisible(_ request: PageLoadState.Request, document: URL) -> Bool {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        if scheme == document.scheme?.lowercased() && url.host == document.host && url.port == document.port,
           request.redirects.isEmpty {
            return true
        }
        let origin = URLCanonicalizer.origin(of: document)
        return request.responseHeaders.contains { header in
            header.name.caseInsensitiveCompare("Timing-Allow-Origin") == .orderedSame
                && header.value.split(separator: ",").contains { value in
                    let value = value.trimmingCharacters(in: .whitespaces)
                    return value == "*" || value == origin
                }
        }
    }

    /// The URL the request went to after its `index`-th redirect.
    private static func hopTarget(_ request: PageLoadState.Request, after index: Int) -> URL {
        index + 1 < request.redirects.count ? request.redirects[index + 1].url : request.url
    }

    /// HAR phases from a Resource Timing entry, for the fetch that began at
    /// `from`: what the entry says of DNS, connecting, waiting and receiving,
    /// and the rest of the span to `responseEnd` as `blocked` (queueing and
    /// the gaps between phases), so that the phases add up to the whole. An
    /// entry without details (cross-origin, no `Timing-Allow-Origin`) is all `wait`.
    private static func timings(_ t: PageFacts.Timing, from: Double) -> Timings {
        var timings = Timings()
        if t.domainLookupStart > 0 && t.domainLookupEnd >= t.domainLookupStart {
            timings.dns = (t.domainLookupEnd - t.domainLookupStart).tenths
        }
        if t.connectStart > 0 && t.connectEnd >= t.connectStart {
            timings.connect = (t.connectEnd - t.connectStart).tenths
            if t.secureConnectionStart > 0 { timings.ssl = (t.connectEnd - t.secureConnectionStart).tenths }
        }
        if t.requestStart > 0 && t.responseStart >= t.requestStart {
            timings.wait = (t.responseStart - t.requestStart).tenths
            timings.receive = max(0, t.responseEnd - t.responseStart).tenths
        }
        let known = [timings.dns, timings.connect, timings.wait, timings.receive].filter { $0 > 0 }.reduce(0, +)
        let rest = max(0, t.responseEnd - from - known).tenths
        if t.requestStart > 0 {
            timings.blocked = rest
        } else {
            timings.wait = rest  // cross-origin without Timing-Allow-Origin: only the span is known
        }
        return timings
    }

}

extension RequestRecord.ResourceType {
    /// From the request's `Sec-Fetch-Dest` (which WebKit sends to https and
    /// loopback URLs), else from Resource Timing's initiator type and the
    /// response's MIME type.
    init(_ request: PageLoadState.Request, initiator: String?) {
        let destination = request.requestHeaders.first { $0.name.caseInsensitiveCompare("Sec-Fetch-Dest") == .orderedSame }?.value
        switch destination?.lowercased() {
        case "document", "iframe", "frame", "embed", "object": self = .document
        case "style": self = .stylesheet
        case "script", "worker", "sharedworker", "serviceworker", "audioworklet", "paintworklet": self = .script
        case "image": self = .image
        case "font": self = .font
        case "audio", "video", "track": self = .media
        case "empty": self = .fetch
        default:
            switch initiator {
            case "xmlhttprequest", "fetch", "beacon": self = .fetch
            case "script": self = .script
            case "img", "image": self = .image
            case "video", "audio", "track": self = .media
            default: self = Self(mimeType: request.mimeType, isMainResource: request.isMainResource)
            }
        }
    }

    private init(mimeType: String?, isMainResource: Bool) {
        let mime = mimeType?.lowercased() ?? ""
        if isMainResource || mime == "text/html" || mime == "application/xhtml+xml" { self = .document }
        else if mime == "text/css" { self = .stylesheet }
        else if mime.contains("javascript") || mime.contains("ecmascript") { self = .script }
        else if mime.hasPrefix("image/") { self = .image }
        else if mime.hasPrefix("font/") || mime.contains("font") { self = .font }
        else if mime.hasPrefix("audio/") || mime.hasPrefix("video/") { self = .media }
        else if mime.contains("json") || mime.contains("xml") { self = .fetch }
        else { self = .other }
    }
}
