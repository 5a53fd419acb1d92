import Foundation
import NavWatch
import NavWatchCrawler

/// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) from page-load
/// reports: one page per loaded report, one entry per request it made.
///
/// - A redirect is an entry of its own whose `response.redirectURL` names
///   the next entry's URL.
/// - A failed request has status 0 and `_error` (its `NavigationError.Kind`);
///   a request still pending when the report was made has `_pending: true`.
/// - `timings` come from the page's Resource Timing where WebKit exposes
///   them (`dns`, `connect`, `ssl`, `wait`, `receive`, and `blocked` the rest
///   of the span; `send` is 0), from navwatch's own event times otherwise
///   (all in `wait`), and `time` is their sum, as the spec defines it.
/// - `content.size` is the decoded body, `response.bodySize` the body as
///   received, `_transferSize` the bytes on the wire; 0 or -1 where unknown.
/// - `_resourceType` is navwatch's resource type. A report stored without
///   its requests (by an earlier version) gets one entry for its document.
enum HARExport {
    static func har(_ reports: [PageLoadReport]) -> String {
        var pages: [[String: Any]] = [], entries: [[String: Any]] = []
        for (index, report) in reports.enumerated() where report.wasLoaded {
            let id = "page_\(index + 1)"
            let started = report.startedAt ?? report.fetchedAt.addingTimeInterval(-(report.timings.finish ?? 0) / 1000)
            pages.append([
                "startedDateTime": PageLoadReport.timestamp(started), "id": id, "title": report.title ?? report.url,
                "pageTimings": ["onContentLoad": report.timings.domContentLoaded ?? -1, "onLoad": report.timings.load ?? -1],
            ])
            let requests = report.requests.isEmpty ? [RequestRecord.document(of: report)] : report.requests
            for request in requests {
                entries.append(entry(request, page: id, pageStart: started))
            }
        }
        let log: [String: Any] = ["log": [
            "version": "1.2", "creator": ["name": "navwatch", "version": "0.1"], "pages": pages, "entries": entries,
        ]]
        let data = (try? JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func entry(_ request: RequestRecord, page: String, pageStart: Date) -> [String: Any] {
        let url = URL(string: request.url)
        let query = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        let timings: [String: Any] = [
            "blocked": request.timings.blocked, "dns": request.timings.dns, "connect": request.timings.connect,
            "ssl": request.timings.ssl, "send": request.timings.send, "wait": request.timings.wait,
            "receive": request.timings.receive,
        ]
        var entry: [String: Any] = [
            "pageref": page,
            "startedDateTime": PageLoadReport.timestamp(pageStart.addingTimeInterval(request.startMs / 1000)),
            "time": request.timeMs,
            "request": [
                "method": request.method, "url": request.url, "httpVersion": "HTTP/1.1", "cookies": [Any](),
                "headers": headers(request.requestHeaders),
                "queryString": query.map { ["name": $0.name, "value": $0.value ?? ""] },
                "headersSize": -1, "bodySize": request.method == "GET" || request.method == "HEAD" ? 0 : -1,
            ] as [String: Any],
            "response": [
                "status": request.status ?? 0, "statusText": request.statusText ?? "",
                "httpVersion": request.status == nil ? "" : "HTTP/1.1", "cookies": [Any](),
                "headers": headers(request.responseHeaders),
                "content": ["size": request.bodyBytes ?? 0, "mimeType": request.mime ?? "x-unknown"] as [String: Any],
                "redirectURL": request.redirectURL ?? "", "headersSize": -1, "bodySize": request.encodedBytes ?? -1,
            ] as [String: Any],
            "cache": [String: Any](),
            "timings": timings,
            "_resourceType": request.type.rawValue,
        ]
        if let transfer = request.transferBytes { entry["_transferSize"] = transfer }
        if let error = request.error { entry["_error"] = error }
        if request.pending { entry["_pending"] = true }
        return entry
    }

    private static func headers(_ headers: [HTTPHeader]) -> [[String: String]] {
        headers.map { ["name": $0.name, "value": $0.value] }
    }
}
