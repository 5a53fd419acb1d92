import Foundation
import NavWatch
import NavWatchCrawler

/// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) from page-load
/// reports: one page per loaded report, one entry per request it made.
///
/// - A redirect is an entry of its own whose `response.redirectURL` names
///   the next entry's URL.
/// - A page has `_data`, what the crawl's page handler (`--extract`)
///   returned for it, or `_handlerError`, why the handler gave nothing, and
///   `_network`, the network profile it loaded over (`--network`), and
///   `_emulation`, what its view emulated (`--device`, `--viewport`, ...). Its
///   `pageTimings` are of the load its entries are, the first of `--runs`.
/// - A failed request has status 0 and `_error` (its `NavigationError.Kind`);
///   a request still pending when the report was made has `_pending: true`.
/// - `timings` come from the page's Resource Timing where WebKit exposes
///   them (`dns`, `connect`, `ssl`, `wait`, `receive`, and `blocked` the rest
///   of the span; `send` is 0), from navwatch's own event times otherwise
///   (all in `wait`), and `time` is their sum, as the spec defines it.
/// - `content.size` is the decoded body, `response.bodySize` the body as
///   received, `_transferSize` the bytes on the wire; 0 or -1 where unknown.
/// - A request WebKit served from its cache, no byte crossing the network,
///   has `_fromCache: true`, `_transferSize: 0` and a `cache` object with a
///   comment saying so; `_fromCache: false` says it was fetched, and where
///   the page may not see a request's sizes (cross-origin without
///   `Timing-Allow-Origin`) there is no `_fromCache`.
/// - `_resourceType` is navwatch's resource type. A report stored without
///   its requests (by an earlier version) gets one entry for its document.
///
/// The document is written as it is made (`HARWriter` is a writer): entries
/// go to the output as each report comes, pages to a temporary file copied
/// in at the end, so memory holds one report whatever the crawl's size.
/// Every page and entry is one line of JSON with sorted keys.
public final class HARWriter {
    private let output: TextOutput
    private let pages: TextOutput
    private let pagesPath: String
    /// Reports added, loaded or not: a page's id is `page_<its position>`.
    private var reports = 0
    private var pageCount = 0
    private var entryCount = 0

    /// Starts a document in the file at `path`, created or replaced (`-`:
    /// standard output). Add the reports, then `finish()`.
    ///
    /// - Throws: `OutputError` when the file cannot be made.
    public convenience init(path: String) throws(OutputError) {
        try self.init(output: TextOutput(path: path))
    }

    /// Starts a document on `output`.
    package init(output: TextOutput) throws(OutputError) {
        self.output = output
        pagesPath = FileManager.default.temporaryDirectory.appendingPathComponent("navwatch-har-\(UUID().uuidString)").path
        pages = try TextOutput(path: pagesPath)
        // The version is digits and dots (CHANGELOG.md's release heading): nothing to escape.
        output.write(#"{"log":{"creator":{"name":"navwatch","version":""# + navwatchVersion + #""},"entries":["#)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: pagesPath)
    }

    /// Adds the page of `report` (when it was loaded, and is no resource a
    /// page embeds) and an entry per request. A report read without its
    /// requests (`storedReports()`'s default) gets one entry, its document's.
    public func add(_ report: PageLoadReport) {
        reports += 1
        guard report.wasLoaded, report.isPage else { return }
        let id = "page_\(reports)"
        let started = report.startedAt ?? report.fetchedAt.addingTimeInterval(-(report.timings.finish ?? 0) / 1000)
        // The first load, whose requests the entries are (later runs' timings are in the report).
        let timings = report.runs?.first ?? report.timings
        let page = Page(startedDateTime: PageLoadReport.timestamp(started), id: id, title: report.title ?? report.url,
                        pageTimings: .init(onContentLoad: timings.domContentLoaded ?? -1, onLoad: timings.load ?? -1),
                        _data: report.data, _handlerError: report.handlerError, _network: report.network,
                        _emulation: report.emulation)
        pages.write((pageCount == 0 ? "\n" : ",\n") + JSONText.of(page))
        pageCount += 1
        let requests = report.requests.isEmpty ? [RequestRecord.document(of: report)] : report.requests
        for request in requests {
            output.write((entryCount == 0 ? "\n" : ",\n") + JSONText.of(Entry(request, page: id, pageStart: started)))
            entryCount += 1
        }
    }

    /// Ends the document: the pages, the version, and the output's end.
    /// Call it once, after the last `add`.
    ///
    /// - Throws: `OutputError` when the file cannot be written.
    public func finish() throws(OutputError) {
        output.write("\n],\"pages\":[")
        try pages.finish()
        try output.append(contentsOf: pagesPath)
        output.write("\n],\"version\":\"1.2\"}}\n")
        try output.finish()
    }

    /// A HAR file of `reports` at `path`, created or replaced.
    ///
    /// - Throws: `OutputError` when the file cannot be written.
    public static func write(_ reports: [PageLoadReport], to path: String) throws(OutputError) {
        let har = try HARWriter(output: TextOutput(path: path))
        for report in reports { har.add(report) }
        try har.finish()
    }

    // MARK: HAR 1.2 objects

    private struct Page: Encodable {
        struct Timings: Encodable { var onContentLoad, onLoad: Double }
        var startedDateTime, id, title: String
        var pageTimings: Timings
        /// What the crawl's page handler returned for the page, and why it gave nothing.
        var _data: JavaScriptValue?
        var _handlerError: String?
        /// The network profile the page loaded over (`--network`).
        var _network: NetworkProfile?
        /// What the page's view emulated (`--device`, `--viewport`, `--user-agent`, `--timezone`).
        var _emulation: PageLoadReport.EmulationInfo?
    }

    private struct NameValue: Encodable { var name, value: String }
    private struct Empty: Encodable {}
    private struct Cache: Encodable { var comment: String? }

    private struct Entry: Encodable {
        struct Request: Encodable {
            var method, url, httpVersion: String
            var cookies: [Empty] = []
            var headers: [HTTPHeader]
            var queryString: [NameValue]
            var headersSize = -1
            var bodySize: Int
        }
        struct Content: Encodable {
            var size: Int
            var mimeType: String
        }
        struct Response: Encodable {
            var status: Int
            var statusText, httpVersion: String
            var cookies: [Empty] = []
            var headers: [HTTPHeader]
            var content: Content
            var redirectURL: String
            var headersSize = -1
            var bodySize: Int
        }
        var pageref, startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache: Cache
        var timings: RequestRecord.Timings
        var _resourceType: String
        var _transferSize: Int?
        var _fromCache: Bool?
        var _error: String?
        var _pending: Bool?

        init(_ request: RequestRecord, page: String, pageStart: Date) {
            let query = URL(string: request.url).flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
            pageref = page
            startedDateTime = PageLoadReport.timestamp(pageStart.addingTimeInterval(request.startMs / 1000))
            time = request.timeMs
            self.request = Request(method: request.method, url: request.url, httpVersion: "HTTP/1.1",
                                   headers: request.requestHeaders,
                                   queryString: query.map { NameValue(name: $0.name, value: $0.value ?? "") },
                                   bodySize: request.method == "GET" || request.method == "HEAD" ? 0 : -1)
            response = Response(status: request.status ?? 0, statusText: request.statusText ?? "",
                                httpVersion: request.status == nil ? "" : "HTTP/1.1", headers: request.responseHeaders,
                                content: Content(size: request.bodyBytes ?? 0, mimeType: request.mime ?? "x-unknown"),
                                redirectURL: request.redirectURL ?? "", bodySize: request.encodedBytes ?? -1)
            timings = request.timings
            _resourceType = request.type.rawValue
            _transferSize = request.transferBytes
            _fromCache = request.fromCache
            cache = Cache(comment: request.fromCache == true ? "served from WebKit's cache" : nil)
            _error = request.error?.rawValue
            _pending = request.pending ? true : nil
        }
    }
}
