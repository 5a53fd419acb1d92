import Foundation
import NavWatchCrawler
import NavWatchSupport

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
        if let commit = summary.commitMilliseconds { parts.append("commit \(commit.millisecondsText)") }
        if let finish = summary.finishMilliseconds { parts.append("finish \(finish.millisecondsText)") }
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
    /// each timing `{"count", "median", "min", "max", "q1", "q3"}` or null.
    package func printRuns(of url: URL, _ loads: [PageSummary]) {
        let commit = TimingSpread.Spread(loads.compactMap(\.commitMilliseconds))
        let finish = TimingSpread.Spread(loads.compactMap(\.finishMilliseconds))
        let finished = loads.filter { $0.finishMilliseconds != nil }.count
        switch format {
        case .jsonLines:
            write(JSONText.of(RunsLine(url: url.absoluteString, runs: loads.count, finished: finished, commit: commit,
                                       finish: finish)))
        case .text:
            func text(_ name: String, _ spread: TimingSpread.Spread?) -> String? {
                spread.map { "\(name) median \($0.median.millisecondsText) (\($0.min.millisecondsText) – \($0.max.millisecondsText), IQR \($0.interquartileRange.millisecondsText))" }
            }
            let parts = [TerminalText.inert(url.absoluteString), "\(finished) of \(loads.count) runs finished",
                         text("commit", commit), text("finish", finish)].compactMap { $0 }
            write(parts.joined(separator: "  "))
        }
    }

    /// The `runs` line of `--json`: each spread's times to a tenth of a
    /// millisecond, and null when no load reached that point.
    private struct RunsLine: Encodable {
        var event = "runs"
        var url: String
        var runs: Int
        var finished: Int
        var commit: TimingSpread.Spread?
        var finish: TimingSpread.Spread?

        private enum CodingKeys: String, CodingKey {
            case event, url, runs, finished, commit = "commit_ms", finish = "finish_ms"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(event, forKey: .event)
            try container.encode(url, forKey: .url)
            try container.encode(runs, forKey: .runs)
            try container.encode(finished, forKey: .finished)
            try container.encode(commit.map(Self.tenths), forKey: .commit)
            try container.encode(finish.map(Self.tenths), forKey: .finish)
        }

        private static func tenths(_ spread: TimingSpread.Spread) -> TimingSpread.Spread {
            var spread = spread
            for path in [\TimingSpread.Spread.median, \.min, \.max, \.q1, \.q3] {
                spread[keyPath: path] = (spread[keyPath: path] * 10).rounded() / 10
            }
            return spread
        }
    }

    private func textLine(_ event: WatchEvent) -> String {
        let time = event.milliseconds.millisecondsText
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
