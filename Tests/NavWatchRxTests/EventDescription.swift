import Foundation
import NavWatch

/// A navigation event as a short line for exact assertions, its URLs
/// relative to `base` ("start /page", "redirect /page", "commit 200",
/// "finish", "fail-provisional cancelled").
func describe(_ event: NavigationEvent, base: URL) -> String {
    let short = { (url: URL) in url.absoluteString.replacingOccurrences(of: base.absoluteString, with: "") }
    switch event {
    case .didStartProvisionalNavigation(let n): return "start \(short(n.url))"
    case .didReceiveServerRedirect(_, let url): return "redirect \(short(url))"
    case .didCommit(_, let response): return "commit \(response.statusCode)"
    case .didFinish: return "finish"
    case .didFailProvisionalNavigation(_, let e): return "fail-provisional \(e.kind.rawValue)"
    case .didFail(_, let e): return "fail \(e.kind.rawValue)"
    default: return "other"
    }
}
