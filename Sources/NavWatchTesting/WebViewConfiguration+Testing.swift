extension WebViewConfiguration {
    /// A view for an end-to-end test, as a Playwright test's page: a
    /// JavaScript dialog that no handler (`WebView.onDialog(_:)`) answers is
    /// dismissed (`confirm()` answers false, `prompt()` null), and storage is
    /// ephemeral. Everything else is the default.
    ///
    ///     let view = try WebView(configuration: .testing)
    public static var testing: WebViewConfiguration {
        WebViewConfiguration(unansweredDialogs: .dismiss)
    }
}
