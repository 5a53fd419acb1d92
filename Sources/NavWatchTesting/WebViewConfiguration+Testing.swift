extension WebViewConfiguration {
    /// A view for an end-to-end test, as a Playwright test's page in its own
    /// browser context: a JavaScript dialog that no handler
    /// (`WebView.onDialog(_:)`) answers is dismissed (`confirm()` answers
    /// false, `prompt()` null), and storage is `isolated`: each view starts
    /// with no cookies and no `localStorage`, and sees no other view's (set
    /// `storageState` to start it logged in). Everything else is the default.
    ///
    ///     let view = try WebView(configuration: .testing)
    public static var testing: WebViewConfiguration {
        WebViewConfiguration(storage: .isolated, unansweredDialogs: .dismiss)
    }
}
