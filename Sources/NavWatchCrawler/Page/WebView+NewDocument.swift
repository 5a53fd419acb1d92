import Foundation
import NavWatch
import NavWatchRx
import WebKitThread

extension WebView {
    /// Makes the next load of `url` load a document: when the view shows the
    /// document `url` names (the two differ only in their fragments, as the
    /// hash routes of one app do), WebKit would only move to the fragment,
    /// with no load cycle, and the load would never start. The view then
    /// shows a blank page first.
    func leaveDocument(before url: URL) async {
        guard url.fragment != nil, let shown = self.url, Self.document(of: shown) == Self.document(of: url) else { return }
        _ = try? await rx.pageLoad(URL(string: "about:blank")!, timeout: .seconds(30))
    }

    private static func document(of url: URL) -> Substring {
        url.absoluteString.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
    }
}
