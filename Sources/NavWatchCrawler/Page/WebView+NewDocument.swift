import Foundation
import NavWatch
import NavWatchRx
import WebKitThread

extension WebView {
    /// Loads `url` as a document, after `leaveDocument(before:)`, and
    /// returns how that navigation ended; nil when it could not start.
    func loadDocument(_ url: URL, timeout: Duration) async -> PageLoadOutcome? {
        await leaveDocument(before: url)
        return try? await rx.pageLoad(url, timeout: timeout)
    }

    /// Makes the next load of `url` load a document: when the view shows the
    /// document `url` names (the two differ only in their fragments, as the
    /// hash routes of one app do), WebKit would only move to the fragment,
    /// with no load cycle, and the load would never start. The view then
    /// shows a blank page first.
    func leaveDocument(before url: URL) async {
        guard url.fragment != nil, let shown = self.url,
              URLCanonicalizer.document(shown.absoluteString) == URLCanonicalizer.document(url.absoluteString) else { return }
        _ = try? await showBlankPage()
    }
}
