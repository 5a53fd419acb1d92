/// A JavaScript dialog (`alert`, `confirm`, `prompt`, or a `beforeunload`
/// prompt) handed to the view's dialog handler (`WebView.onDialog(_:)`), as
/// Playwright's `Dialog`: the handler answers it with `accept(_:)` or
/// `dismiss()` before it returns. The page waits for nothing: a dialog the
/// handler leaves unanswered goes to the view's delegate, then to the
/// configuration's `unansweredDialogs`.
@WebKitActor
public final class Dialog {
    /// What opened it.
    public let type: ScriptDialog.Kind
    /// The text the page asked it to show.
    public let message: String
    /// A prompt's default text; empty for other dialogs, as in Playwright.
    public let defaultValue: String
    /// The answer given so far; nil until `accept(_:)` or `dismiss()`. The first answer counts.
    public private(set) var answer: ScriptDialogResponse?

    init(_ dialog: ScriptDialog) {
        type = dialog.kind
        message = dialog.message
        defaultValue = dialog.defaultText ?? ""
    }

    /// OK; a prompt gets `promptText`, or its default text when nil.
    public func accept(_ promptText: String? = nil) {
        guard answer == nil else { return }
        answer = promptText.map { .acceptWithText($0) } ?? .accept
    }

    /// Cancel (an alert just closes).
    public func dismiss() {
        guard answer == nil else { return }
        answer = .dismiss
    }
}
