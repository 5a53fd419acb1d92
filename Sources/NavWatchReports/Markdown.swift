/// Escaping for text placed in a Markdown table cell.
enum Markdown {
    /// `text` for a table cell: a `|` or a line break would end the cell.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
