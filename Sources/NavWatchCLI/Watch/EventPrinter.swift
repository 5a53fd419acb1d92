import Foundation
import NavWatchCrawler
import NavWatchReports

/// Writes `WatchEvent`s to standard output: JSON Lines, or aligned columns
/// for people (coloured when standard output is a terminal).
package struct EventPrinter: Sendable {
    package enum Format: Sendable { case text, jsonLines }

    package let format: Format
    package let colour: Bool

    package init(format: Format, colour: Bool = isatty(STDOUT_FILENO) == 1) {
        self.format = format
        self.colour = colour && format == .text
    }

    package func print(_ event: WatchEvent) {
        write(format == .jsonLines ? event.jsonLine : textLine(event))
    }

    /// The one-line summary of a watched URL (text format only).
    package func printSummary(_ summary: PageSummary) {
        guard format == .text else { return }
        var parts: [String] = []
        parts.append(summary.succeeded ? paint("✔", .green) : paint("✘", .red))
        parts.append(TerminalText.inert(summary.requested.absoluteString))
        if let status = summary.status { parts.append("→ " + paint(String(status), status < 400 ? .green : .red)) }
        if let final = summary.finalURL, final != summary.requested.absoluteString { parts.append(TerminalText.inert(final)) }
        if let error = summary.error { parts.append(paint(error.kind.rawValue, .red) + " (\(TerminalText.inert(error.message)))") }
        if let commit = summary.commitMilliseconds { parts.append("commit \(JSON.number(commit)) ms") }
        if let finish = summary.finishMilliseconds { parts.append("finish \(JSON.number(finish)) ms") }
        if let title = summary.title { parts.append(Self.quoted(title)) }
        let problems = [(summary.pageErrors, "page error"), (summary.consoleErrors, "console error"),
                        (summary.consoleWarnings, "console warning")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" + ($0.0 == 1 ? "" : "s") }
        if !problems.isEmpty { parts.append(paint(problems.joined(separator: ", "), .red)) }
        write(parts.joined(separator: "  "))
    }

    /// How the loads of `url` varied (`--runs`): the median and spread of
    /// their commit and finish, from the loads that reached them. Text: one
    /// line; JSON Lines: `{"event": "runs", "url", "runs", "finished", "commit_ms", "finish_ms"}`,
    /// each timing `{"median", "min", "max", "q1", "q3"}` or null.
    package func printRuns(of url: URL, _ loads: [PageSummary]) {
        let commit = TimingSpread.Spread(loads.compactMap(\.commitMilliseconds))
        let finish = TimingSpread.Spread(loads.compactMap(\.finishMilliseconds))
        let finished = loads.filter { $0.finishMilliseconds != nil }.count
        switch format {
        case .jsonLines:
            func object(_ spread: TimingSpread.Spread?) -> String {
                guard let spread else { return "null" }
                return JSON.object([("median", JSON.number(spread.median)), ("min", JSON.number(spread.min)),
                                    ("max", JSON.number(spread.max)), ("q1", JSON.number(spread.q1)), ("q3", JSON.number(spread.q3))])
            }
            write(JSON.object([("event", JSON.string("runs")), ("url", JSON.string(url.absoluteString)),
                               ("runs", String(loads.count)), ("finished", String(finished)),
                               ("commit_ms", object(commit)), ("finish_ms", object(finish))]))
        case .text:
            func text(_ name: String, _ spread: TimingSpread.Spread?) -> String? {
                spread.map { "\(name) median \(JSON.number($0.median)) ms (\(JSON.number($0.min))–\(JSON.number($0.max)), IQR \(JSON.number($0.interquartileRange)))" }
            }
            let parts = [TerminalText.inert(url.absoluteString), "\(finished) of \(loads.count) runs finished",
                         text("commit", commit), text("finish", finish)].compactMap { $0 }
            write(parts.joined(separator: "  "))
        }
    }

    private func textLine(_ event: WatchEvent) -> String {
        let time = JSON.number(event.milliseconds) + " ms"
        let name = event.kind.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)
        var line = String(repeating: " ", count: max(0, 10 - time.count)) + time + "  "
            + "#\(event.nav)".padding(toLength: 4, withPad: " ", startingAt: 0) + " "
            + paint(name, colour(for: event)) + " " + TerminalText.inert(event.url)
            + (event.line.map { ":\($0)" } ?? "") + (event.column.map { ":\($0)" } ?? "")
        var extras: [String] = []
        if let kind = event.sameDocumentKind { extras.append(kind.rawValue) }
        if let level = event.level { extras.append(level) }
        if let dialogType = event.dialogType { extras.append(dialogType) }
        if let message = event.message { extras.append(Self.quoted(message)) }
        if let answer = event.answer { extras.append(answer + (event.answerText.map { " " + Self.quoted($0) } ?? "")) }
        if let status = event.status { extras.append(String(status)) }
        if let mime = event.mime { extras.append(TerminalText.inert(mime)) }
        if let title = event.title { extras.append(Self.quoted(title)) }
        if let error = event.error {
            extras.append(paint(error.kind.rawValue, .red)
                          + ": \(TerminalText.inert(error.message)) (\(TerminalText.inert(error.domain)) \(error.code))")
        }
        if !extras.isEmpty { line += "  " + extras.joined(separator: "  ") }
        return line
    }

    /// A page's string in quotes, inert; a quote in it is shown as `\"`.
    private static func quoted(_ text: String) -> String {
        "\"" + TerminalText.inert(text).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private enum Colour: String {
        case red = "31", green = "32", yellow = "33", blue = "34", dim = "2"
    }

    private func colour(for event: WatchEvent) -> Colour {
        switch event.kind {
        case .finished: return (event.status ?? 0) >= 400 ? .yellow : .green
        case .failed, .terminated, .resourceFailed, .pageError: return .red
        case .console: return event.level == "error" ? .red : event.level == "warn" ? .yellow : .dim
        case .started, .redirected, .committed: return .blue
        default: return .dim
        }
    }

    private func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
