extension WebView {
    /// Sets the handler that answers the page's JavaScript dialogs, as
    /// Playwright's `page.on('dialog')`; nil removes it. It runs on the WebKit
    /// thread while the page waits, and answers with `dialog.accept(_:)` or
    /// `dialog.dismiss()` before it returns. A dialog it leaves unanswered
    /// (or any dialog, without a handler) is answered by the delegate's
    /// `webView(_:runScriptDialog:)`, whose default is the configuration's
    /// `unansweredDialogs`. Every dialog is then reported with its answer
    /// (`NavigationEvent.scriptDialog`).
    ///
    /// ```swift
    /// view.onDialog { dialog in
    ///     if dialog.type == .confirm, dialog.message == "Delete?" { dialog.accept() } else { dialog.dismiss() }
    /// }
    /// ```
    public func onDialog(_ handler: (@WebKitActor (Dialog) -> Void)?) {
        dialogHandler = handler
    }

    /// The answer to `request`: the handler's, else the delegate's.
    func answer(_ request: ScriptDialog) -> ScriptDialogResponse {
        if let dialogHandler {
            let dialog = Dialog(request)
            dialogHandler(dialog)
            if let answer = dialog.answer { return answer }
        }
        return decider.webView(self, runScriptDialog: request)
    }
}
