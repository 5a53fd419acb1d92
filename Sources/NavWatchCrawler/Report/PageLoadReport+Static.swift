import Foundation
import NavWatchGuard
import NavWatchHTTP

extension PageLoadReport {
    /// Fills the report of a page read from its HTML instead of rendered
    /// (`RenderMode`): `rendered` false and `reason`; the answer as for a
    /// checked link (status, MIME type, redirects, or the error) and, as for
    /// a rendered page, the final URL of every answer;
    /// the title, links and ids the HTML has (and `addedIDs`, the ids renders
    /// of its kind added); the document request's time to first byte and to
    /// its end as `timings.ttfb` and `timings.finish`; one request, the
    /// document's, in `resources`. An answer of the guard (`guardVerdict`,
    /// for the document's final URL) is recorded as for a checked link,
    /// with the one request in `resources`.
    ///
    /// What only a render can know stays nil, meaning not measured: the
    /// commit, DOM and load timings, paint, metrics, console and page errors,
    /// the late window, subresources.
    ///
    /// The URL, depth, parent, attempts and start time are the caller's.
    mutating func record(_ page: StaticPage, reason: RenderReason, addedIDs: Set<String> = [],
                         guardVerdict: GuardVerdict? = nil) {
        let document = page.document
        let guardAnswer = GuardAnswer(guardVerdict, status: document.status, errorKind: nil, viaTunnel: true)
        // As a rendered page's: the final URL is where any answer came from.
        recordAnswer(url: document.url, status: document.status, mime: document.mimeType, redirects: document.redirects,
                     errorKind: document.errorKind, errorMessage: document.errorMessage,
                     answeredFrom: document.status != nil ? document.finalURL : nil,
                     guardAnswer: guardAnswer, asked: document.finalURL)
        rendered = false
        renderReason = reason
        guard document.status != nil else { return }
        resources.count = 1
        resources.transferBytes = document.transferBytes
        resources.byType = ["document": .init(count: 1, bytes: document.transferBytes)]
        guard guardAnswer == nil else { return }  // the rest would describe the guard's answer
        timings.ttfb = document.responseStart?.milliseconds.tenths
        timings.finish = document.responseEnd?.milliseconds.tenths
        guard let html = page.html else {
            linksNotRead = page.unparsed?.description
            return
        }
        title = html.title.flatMap { $0.isEmpty ? nil : $0 }
        links = html.links.count
        anchors = html.anchors + addedIDs.subtracting(html.anchors).sorted()
    }
}
