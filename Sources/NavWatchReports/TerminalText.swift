/// How text that navwatch did not write (a page's title, a link's text, a
/// URL, a console message, a server's reason phrase, an error WebKit quotes)
/// is shown to a person: inert, so that it cannot move the cursor, clear the
/// screen, set the window's title, colour what follows or reverse the order
/// in which a line reads.
///
/// Every text output for people goes through it: the watch lines and
/// summaries, `crawl`'s summary, `links`, `budgets`, `diff` and `status` as
/// text, and the one-line errors. Those outputs are made as arrays of lines
/// and written by `lines(_:)`, so that navwatch's own line breaks are the only
/// ones: a stranger's line feed shows as `\n` on the line it came in. CSV,
/// Markdown and GitHub workflow commands use `inert(_:)` inside their own
/// escaping (see `ReportExport.csvRow`, `Markdown.cell`, `GitHubAnnotations`);
/// JSON, HTML and XML outputs keep theirs.
package enum TerminalText {
    /// `text` with what could drive a terminal escaped, the rest kept, so it
    /// stays recognisable: C0 controls as `\n`, `\r`, `\t` or `\u001b`; DEL
    /// and C1 controls as `\u007f` to `\u009f`; bidirectional embeddings,
    /// overrides and isolates (U+202A–U+202E, U+2066–U+2069) as `\u202e`.
    /// (A lone surrogate cannot reach here: a Swift string holds none.)
    package static func inert(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isActive) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isActive(scalar) else {
                shown.append(scalar)
                continue
            }
            switch scalar {
            case "\n": shown.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": shown.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": shown.append(contentsOf: #"\t"#.unicodeScalars)
            default:
                let hex = String(scalar.value, radix: 16)
                shown.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            }
        }
        return String(shown)
    }

    /// Lines that navwatch wrote with strangers' strings in them, each made
    /// inert (a line feed or carriage return in one shown as `\n` or `\r`)
    /// and each ended by a line feed: the only line breaks in the result.
    package static func lines(_ lines: [String]) -> String {
        lines.map { inert($0) + "\n" }.joined()
    }

    private static func isActive(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
