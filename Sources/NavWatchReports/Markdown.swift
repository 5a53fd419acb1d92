/// Escaping for strangers' text placed in Markdown.
enum Markdown {
    /// `text` for a table cell (or a code span in one): a `|` would end the
    /// cell, a line feed or carriage return the row, and a control could
    /// drive the terminal the Markdown is printed on. So `|` is written `\|`,
    /// and the characters `TerminalText.inert` escapes as it does (`\n`,
    /// `\r`, `\t`, `\u001b`, `\u009b`, `\u202e`), which Markdown shows as written.
    static func cell(_ text: String) -> String {
        TerminalText.inert(text).replacingOccurrences(of: "|", with: "\\|")
    }
}
