import CNavShim

extension WebView {
    /// Runs `action`, then waits for the window the page opens meanwhile
    /// (`window.open`, a `target=_blank` link or form), as Playwright's
    /// `page.expect_popup()`, and returns it: a view of its own, with its own
    /// events and locators, sharing this view's web process, configuration
    /// and storage (cookies, `localStorage`, `window.opener`). It may still be
    /// loading: its first navigation is the page's (`Navigation.Origin.page`);
    /// web-first assertions wait for it. The caller closes it.
    ///
    /// ```swift
    /// let popup = try await view.waitForPopup { try await view.getByText("Sign in with Example").click() }
    /// defer { popup.close() }
    /// try await expect(popup).toHaveTitle("Sign in")
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the window once `action` returned;
    ///     nil is `defaultTimeout`.
    ///   - action: what makes the page open it; a window opened while it runs counts.
    /// - Throws: what `action` throws; `InteractionError.timedOut` when no
    ///   window opened in time; `WebViewError.closed` after `close()`.
    public func waitForPopup(timeout: Duration? = nil, _ action: () async throws -> Void) async throws -> WebView {
        guard !isClosed else { throw WebViewError.closed }
        let wait = ActionWait<WebView>()
        let number = popupWaitsMade
        popupWaitsMade += 1
        popupWaits[number] = wait
        defer { popupWaits[number] = nil }
        try await action()
        let limit = timeout ?? defaultTimeout
        guard let popup = await wait.value(within: limit) else {
            if isClosed { throw WebViewError.closed }
            throw InteractionError.timedOut(waitingFor: "a popup", after: limit)
        }
        return popup
    }

    /// Sets the handler that takes each window the page opens, as
    /// Playwright's `page.on('popup')`: a view of its own, as
    /// `waitForPopup(timeout:_:)` returns. nil removes it. Without a handler
    /// or a `waitForPopup` waiting, the page opens no window: the request is
    /// only reported (`NavigationEvent.newWindowRequest`), as in a crawl.
    /// At most `popupLimit` windows of a view's pages are open at once; the
    /// next are refused.
    ///
    /// A popup stays open until it is closed or its opener is: its pages
    /// report through the opener.
    public func onPopup(_ handler: (@WebKitActor (WebView) -> Void)?) {
        popupHandler = handler
    }

    /// The shim view a window the page asked for opens in: a new view related
    /// to this one, for the waits and the handler; nil refuses the window.
    func openPopup(for request: NewWindowRequest) -> OpaquePointer? {
        let waiting = popupWaits.values.filter { !$0.isFulfilled }
        let root = popupRoot ?? self
        guard !waiting.isEmpty || popupHandler != nil, !isClosed, root.popupFamily.count < Self.popupLimit,
              let popup = try? WebView(configuration: configuration, sharingProcessWith: self) else { return nil }
        popup.popupRoot = root
        root.popupFamily.append(popup)
        for wait in waiting { wait.fulfil(popup) }
        popupHandler?(popup)
        return popup.shim
    }
}

extension WebView {
    /// How many windows a view's pages (and their popups) may have open at
    /// once: a page that opens windows in a loop gets this many.
    public nonisolated static let popupLimit = 20

    /// The view showing the page with id `page`: a popup this view's pages
    /// opened, or else this one (its own page, or an unknown id).
    func view(showingPage page: UInt64) -> WebView {
        guard let shim, page != 0, nw_view_page_id(shim) != page else { return self }
        return popupFamily.first { view in view.shim.map { nw_view_page_id($0) == page } ?? false } ?? self
    }
}
