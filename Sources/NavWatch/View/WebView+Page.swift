import CNavShim
import Foundation
import NavWatchSupport
import WebKitThread

extension WebView {
    // MARK: The page, as a test drives it

    /// Loads `url` and returns how that navigation ended, as Playwright's
    /// `page.goto`: it waits for the load event (or the failure).
    ///
    /// Folds the navigation's events from before the load is asked for, so
    /// nothing is missed. A finished outcome carries the response and the
    /// document's title. Cancelling the awaiting task stops the load and
    /// returns its `cancelled` failure. Failures are values: it throws only
    /// when the load cannot start (see `load(_:timeout:)`).
    ///
    /// - Parameters:
    ///   - url: the page to load.
    ///   - timeout: overrides `configuration.navigationTimeout`.
    @discardableResult
    public func goto(_ url: URL, timeout: Duration? = nil) async throws -> PageLoadOutcome {
        try await traced("goto \(url.absoluteString)", failure: Self.failure) {
            let fold = try loadFolding(url, timeout: timeout)
            return await outcome(of: fold, url: url)
        }
    }

    /// Why `outcome` is a failure, for a trace; nil when the page finished.
    private static func failure(_ outcome: PageLoadOutcome?) -> String? {
        guard case .failed(_, let error, _)? = outcome else { return nil }
        return error.description
    }

    /// Shows a blank page (`about:blank`, 30 s at most) and returns how
    /// its load ended. The one warm-up of a new view: its web process is
    /// running once it returns, so the next page's timeout does not count
    /// the process's start (and a view that shares a process asks nothing
    /// of it before that process has a page for it, which can stall the
    /// WebKit thread for 500 ms in WebKitGTK 2.50). Also leaves a document
    /// whose fragments a next load would only move between.
    @discardableResult
    package func showBlankPage() async throws -> PageLoadOutcome {
        try await goto(URL(string: "about:blank")!, timeout: .seconds(30))
    }

    /// Reloads the page shown and returns how the reload ended, as
    /// `goto(_:timeout:)` does; nil when nothing was loaded yet.
    @discardableResult
    public func reload(timeout: Duration? = nil) async throws -> PageLoadOutcome? {
        try await traced("reload", failure: Self.failure) {
            var fold: RunningFold?
            guard let navigation = try reload(beforeIssuing: { fold = RunningFold(view: self, navigation: $0, start: .now) }),
                  let fold else { return nil }
            return await outcome(of: fold, url: navigation.url)
        }
    }

    /// Goes one step back in the view's history and waits for that
    /// navigation to end: a same-document one (a fragment, `pushState`)
    /// returns nil once the page has had its `popstate`; another returns
    /// its outcome. Nil at once when there is no step back.
    ///
    /// - Throws: `InteractionError.timedOut` when the navigation did not end
    ///   within `timeout` (`defaultTimeout` when nil).
    @discardableResult
    public func goBack(timeout: Duration? = nil) async throws(InteractionError) -> PageLoadOutcome? {
        try await traced("goBack") { () async throws(InteractionError) in try await traverse(back: true, timeout: timeout ?? defaultTimeout) }
    }

    /// Goes one step forward in the view's history, as `goBack` goes back.
    @discardableResult
    public func goForward(timeout: Duration? = nil) async throws(InteractionError) -> PageLoadOutcome? {
        try await traced("goForward") { () async throws(InteractionError) in try await traverse(back: false, timeout: timeout ?? defaultTimeout) }
    }

    /// The title of the document shown now (`document.title`).
    public func title() async throws(JavaScriptError) -> String {
        try await evaluateForJSON("return document.title;", kind: .asyncFunction(world: DocumentScript.world))
            .flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) } ?? ""
    }

    /// The URL of the document shown now, same-document navigations included.
    public func currentURL() async throws(JavaScriptError) -> String {
        try await evaluateForJSON("return location.href;", kind: .asyncFunction(world: DocumentScript.world))
            .flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) } ?? ""
    }

    private func traverse(back: Bool, timeout: Duration) async throws(InteractionError) -> PageLoadOutcome? {
        guard let shim else { throw .script(.viewClosed) }
        let watch = InputNavigationWatch(view: self)
        defer { watch.stop() }
        // Handled: the page had its `popstate` or `hashchange`, or went away.
        _ = await evaluateForJSON("""
            window.navwatchInputHandled = new Promise(done => {
              const handled = () => setTimeout(() => setTimeout(done, 0), 0);
              for (const event of ['popstate', 'hashchange', 'pagehide'])
                addEventListener(event, handled, { capture: true, once: true });
            });
            return null;
            """, kind: .asyncFunction(world: DocumentScript.world), backstop: timeout)
        guard (back ? nw_view_go_back(shim) : nw_view_go_forward(shim)) != 0 else { return nil }
        return try await watch.follow(timeout: timeout, input: back ? "going back" : "going forward") {
            await self.inputHandled()
        }
    }

    /// Waits for `fold`'s outcome; a cancelled task stops the load.
    private func outcome(of fold: RunningFold, url: URL) async -> PageLoadOutcome {
        let navigation = fold.state.navigation
        await withTaskCancellationHandler {
            await fold.wait(until: { $0.outcome != nil })
        } onCancel: {
            Task { @WebKitActor in self.stop() }
        }
        // No outcome: the events ended without a `.closed` (the view went away).
        return fold.stop().outcome ?? .failed(navigation, .viewClosed(url: url), response: nil)
    }
}
