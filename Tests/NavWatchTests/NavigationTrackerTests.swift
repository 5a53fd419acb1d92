import Foundation
@testable import NavWatch
import Synchronization
import Testing

/// The attribution rules, fed with the signal orders WebKitGTK 4.1 produces.
@Suite("NavigationTracker")
struct NavigationTrackerTests {
    private static func tracker() -> NavigationTracker {
        let counter = Atomic<UInt64>(0)
        return NavigationTracker(makeID: { counter.add(1, ordering: .relaxed).newValue })
    }

    private static let page = URL(string: "http://h/page")!
    private static let response = NavigationResponse(url: page, statusCode: 200, mimeType: "text/html", headers: [],
                                                     expectedContentLength: nil, suggestedFilename: nil, canShowMIMEType: true)

    private func names(_ events: [NavigationEvent]) -> [String] {
        events.map { event in
            let id = event.navigation.map { "#\($0.id) " } ?? ""
            switch event {
            case .didStartProvisionalNavigation: return id + "start"
            case .didReceiveServerRedirect(_, let url): return id + "redirect \(url.absoluteString)"
            case .didCommit: return id + "commit"
            case .didFinish: return id + "finish"
            case .didFailProvisionalNavigation(_, let e): return id + "fail-provisional \(e.kind.rawValue)"
            case .didFail(_, let e): return id + "fail \(e.kind.rawValue)"
            case .webContentProcessDidTerminate: return "terminated"
            case .sameDocumentNavigation(let s): return "same-document \(s.kind) \(s.url.absoluteString)"
            default: return "other"
            }
        }
    }

    @Test("a plain load: start, commit, finish; the failure-free finish ends it")
    func plainLoad() {
        var tracker = Self.tracker()
        let (navigation, ended) = tracker.request(url: Self.page, origin: .load)
        #expect(ended.isEmpty)
        var events: [NavigationEvent] = []
        events += tracker.handle(.uriChanged("http://h/page"))
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 commit", "#1 finish"])
        #expect(events.first?.navigation == navigation)
        #expect(tracker.active == nil)
    }

    @Test("a cycle the replaced page began after the load was asked for is dropped: its start, failure and finish")
    func replacedDocumentsCycle() {
        var tracker = Self.tracker()
        _ = tracker.request(url: URL(string: "http://h/first")!, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/first", response: nil)) + tracker.handle(.finished)
        // The page asks to go elsewhere (a meta refresh), then the next load is asked for.
        events += tracker.handle(.navigationAsked)
        let (next, ended) = tracker.request(url: Self.page, origin: .load)
        #expect(ended.isEmpty)
        events += tracker.handle(.uriChanged("http://h/page"))
        events += tracker.handle(.started)
        events += tracker.handle(.uriChanged("http://h/first"))
        events += tracker.handle(.failed(uri: "http://h/away", domain: "WebKitPolicyError", code: 102, message: "Frame load interrupted"))
        events += tracker.handle(.finished)
        #expect(tracker.active?.navigation == next && tracker.active?.stage == .requested)
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response)) + tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 commit", "#1 finish", "#2 start", "#2 commit", "#2 finish"])
    }

    @Test("load-failed then FINISHED: one provisional failure, never a finish")
    func failureThenFinished() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.failed(uri: "http://h/page", domain: "g-resolver-error-quark", code: 0, message: "x"))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 fail-provisional dns"])
    }

    @Test("a failure after commit is a committed failure")
    func committedFailure() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response))
        events += tracker.handle(.failed(uri: nil, domain: "g-io-error-quark", code: 44, message: "closed"))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 commit", "#1 fail connection-reset"])
    }

    @Test("a new load cancels the running one; the old cycle's late failure and finish are dropped")
    func supersededLoad() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        let (_, ended) = tracker.request(url: URL(string: "http://h/other")!, origin: .load)
        events += ended
        events += tracker.handle(.failed(uri: "http://h/page", domain: "WebKitNetworkError", code: 302, message: "Load request cancelled"))
        events += tracker.handle(.finished)
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/other", response: Self.response))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 fail-provisional cancelled", "#2 start", "#2 commit", "#2 finish"])
    }

    @Test("a page-initiated navigation takes its URL from the allowed action, not the stale URI")
    func pageInitiated() {
        var tracker = Self.tracker()
        _ = tracker.handle(.navigationAllowed(url: URL(string: "http://h/next")!))
        let events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        #expect(names(events) == ["#1 start"])
        #expect(events.first?.navigation?.url.absoluteString == "http://h/next")
        #expect(events.first?.navigation?.origin == .page)
    }

    @Test("about:blank committed for an http URL is a blocked port; its finish is dropped")
    func blockedPort() {
        var tracker = Self.tracker()
        _ = tracker.request(url: URL(string: "http://127.0.0.1:1/")!, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.uriChanged(""))
        events += tracker.handle(.uriChanged("about:blank"))
        events += tracker.handle(.committed(uri: "about:blank", response: nil))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "#1 fail-provisional blocked-port"])
    }

    @Test("a terminated web process fails the running navigation after reporting the termination")
    func terminated() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.webProcessTerminated(.crashed))
        events += tracker.handle(.finished)
        #expect(names(events) == ["#1 start", "terminated", "#1 fail-provisional web-process-crashed"])
    }

    @Test("a terminated web process leaves a load WebKit has not started requested; its start is that navigation's")
    func terminatedBeforeStart() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.webProcessTerminated(.terminatedByAPI))
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: Self.page.absoluteString, response: Self.response))
        events += tracker.handle(.finished)
        #expect(names(events) == ["terminated", "#1 start", "#1 commit", "#1 finish"])
    }

    @Test("TLS errors mark the following failure as kind tls")
    func tls() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.failedWithTLSErrors)
        events += tracker.handle(.failed(uri: nil, domain: "WebKitNetworkError", code: 399, message: "Unacceptable TLS certificate"))
        #expect(names(events) == ["#1 start", "#1 fail-provisional tls"])
    }

    @Test("URI changes outside a load cycle are same-document navigations; inside one they are not")
    func sameDocument() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.uriChanged("http://h/page"))
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response))
        events += tracker.handle(.finished)
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/pushed"))
        events += tracker.handle(.uriChanged("http://h/pushed"))
        events += tracker.handle(.uriChanged("http://h/pushed"))
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/pushed#a"))
        events += tracker.handle(.popState(uri: "http://h/pushed#a"))
        events += tracker.handle(.uriChanged("http://h/pushed#a"))
        #expect(names(events) == ["#1 start", "#1 commit", "#1 finish",
                                  "same-document push http://h/pushed", "same-document fragment http://h/pushed#a"])
    }

    @Test("a same-document navigation's kind comes from the history change and popstate for its URL since the last URI change")
    func sameDocumentKinds() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/page"))  // the load's own entry
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response))
        events += tracker.handle(.uriChanged("http://h/page"))
        events += tracker.handle(.finished)
        events += tracker.handle(.uriChanged("http://h/replaced"))
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/pushed"))
        events += tracker.handle(.uriChanged("http://h/pushed"))
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/pushed#a"))
        events += tracker.handle(.popState(uri: "http://h/pushed#a"))
        events += tracker.handle(.uriChanged("http://h/pushed#a"))
        events += tracker.handle(.historyChanged(itemAdded: false, uri: "http://h/pushed"))
        events += tracker.handle(.popState(uri: "http://h/pushed"))
        events += tracker.handle(.uriChanged("http://h/pushed"))
        events += tracker.handle(.historyChanged(itemAdded: false, uri: "http://h/replaced"))  // a pop the page cannot see
        events += tracker.handle(.uriChanged("http://h/replaced"))
        events += tracker.handle(.popState(uri: "http://h/replaced#r"))
        events += tracker.handle(.uriChanged("http://h/replaced#r"))
        // A push of the URL it has already changes no URI; the replace after it is a replace.
        events += tracker.handle(.historyChanged(itemAdded: true, uri: "http://h/replaced#r"))
        events += tracker.handle(.popState(uri: "http://h/replaced#r"))  // and the page's back from it
        events += tracker.handle(.uriChanged("http://h/later"))
        #expect(names(events) == ["#1 start", "#1 commit", "#1 finish",
                                  "same-document replace http://h/replaced", "same-document push http://h/pushed",
                                  "same-document fragment http://h/pushed#a", "same-document pop http://h/pushed",
                                  "same-document pop http://h/replaced", "same-document fragment http://h/replaced#r",
                                  "same-document replace http://h/later"])
    }

    @Test("the URI going back to the shown page after a provisional load ends is not a same-document navigation")
    func uriRevertAfterProvisionalFailure() {
        var tracker = Self.tracker()
        _ = tracker.request(url: Self.page, origin: .load)
        var events = tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.committed(uri: "http://h/page", response: Self.response))
        events += tracker.handle(.finished)
        let (hang, _) = tracker.request(url: URL(string: "http://h/hang")!, origin: .load)
        events += tracker.handle(.navigationAsked) + tracker.handle(.started)
        events += tracker.handle(.uriChanged("http://h/hang"))
        events += tracker.fail(navigationID: hang.id, with: .navwatch(.timeout, .timeout, "timed out", url: hang.url))
        events += tracker.handle(.uriChanged("http://h/page"))  // WebKit puts the shown page's URI back
        events += tracker.handle(.uriChanged("http://h/page#later"))
        events += tracker.handle(.uriChanged("http://h/page"))  // and a real navigation back to it
        #expect(names(events) == ["#1 start", "#1 commit", "#1 finish", "#2 start", "#2 fail-provisional timeout",
                                  "same-document replace http://h/page#later", "same-document replace http://h/page"])
    }

    @Test("an explicit failure (timeout, stop, close) ends only the navigation it names, once")
    func explicitFailure() {
        var tracker = Self.tracker()
        let (navigation, _) = tracker.request(url: Self.page, origin: .load)
        let timeout = NavigationError.navwatch(.timeout, .timeout, "late", url: Self.page)
        #expect(tracker.fail(navigationID: navigation.id + 1, with: timeout).isEmpty)
        #expect(names(tracker.fail(navigationID: navigation.id, with: timeout)) == ["#1 fail-provisional timeout"])
        #expect(tracker.fail(navigationID: navigation.id, with: timeout).isEmpty)
    }

    @Test("GError domains and codes map to kinds", arguments: [
        ("g-resolver-error-quark", 0, "", NavigationError.Kind.dns),
        ("g-io-error-quark", 39, "", .connectionRefused),
        ("g-io-error-quark", 44, "", .connectionReset),
        ("WebKitNetworkError", 302, "Load request cancelled", .cancelled),
        ("WebKitPolicyError", 102, "Frame load interrupted", .policy),
        ("WebKitPolicyError", 103, "", .blockedPort),
        ("", 0, "Load cannot follow more than 20 redirections", .tooManyRedirects),
        ("g-tls-error-quark", 1, "", .tls),
        ("WebKitNetworkError", 399, "whatever", .other),
    ])
    func classification(domain: String, code: Int, message: String, kind: NavigationError.Kind) {
        #expect(NavigationError.classify(domain: domain, code: code, message: message, sawTLSFailure: false) == kind)
    }
}
