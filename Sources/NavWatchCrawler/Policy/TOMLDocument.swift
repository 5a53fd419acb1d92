import Foundation
import TOMLKit

/// A TOML file read for navwatch (a budget file, a policy file): its table,
/// its name for messages, and where its keys are.
struct TOMLDocument {
    let name: String
    let table: TOMLTable
    let lines: TOMLLines

    /// Reads the file at `path`; `kind` is what a message calls it ("budget file").
    init(contentsOf path: String, kind: String) throws(TOMLFileError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw TOMLFileError("cannot read the \(kind) \(path): \((error as NSError).localizedDescription)")
        }
        try self.init(text, name: path)
    }

    /// Parses `text`; `name` is what messages call the file. A syntax error is one line with its line number.
    init(_ text: String, name: String) throws(TOMLFileError) {
        self.name = name
        lines = TOMLLines(text)
        if let line = Self.headerWithoutKey(in: text) {
            throw TOMLFileError("\(name): line \(line): a table header must start with a key, such as [network]")
        }
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw TOMLFileError("\(name): line \(error.source.begin.line): \(error.description)")
        } catch {
            throw TOMLFileError("\(name): \(error)")
        }
    }

    /// The line of the first table header (`[` or `[[` at the start of a
    /// line, outside values and strings) whose key starts with neither a
    /// bare key's character nor a quote, such as `[/x]`: TOMLKit's parser
    /// (toml++) assumes it does, and traps (an assertion) when it does not.
    static func headerWithoutKey(in text: String) -> Int? {
        let scalars = Array(text.unicodeScalars)
        var line = 1, depth = 0, atLineStart = true, index = 0
        var string: (delimiter: Unicode.Scalar, multiline: Bool)?
        func starts(_ run: String, at position: Int) -> Bool {
            run.unicodeScalars.enumerated().allSatisfy { offset, scalar in
                position + offset < scalars.count && scalars[position + offset] == scalar
            }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" { line += 1 }
            if let open = string {
                if scalar == "\\" && open.delimiter == "\"" {
                    if index + 1 < scalars.count && scalars[index + 1] == "\n" { line += 1 }
                    index += 2
                    continue
                }
                if scalar == "\n" && !open.multiline { string = nil; atLineStart = true }
                if scalar == open.delimiter {
                    let closing = String(repeating: String(open.delimiter), count: open.multiline ? 3 : 1)
                    if starts(closing, at: index) { string = nil; index += closing.unicodeScalars.count; continue }
                }
                index += 1
                continue
            }
            switch scalar {
            case "\n": atLineStart = true
            case " ", "\t", "\r": break
            case "#":
                while index + 1 < scalars.count && scalars[index + 1] != "\n" { index += 1 }
            case "\"", "'":
                let multiline = starts(String(repeating: String(scalar), count: 3), at: index)
                string = (scalar, multiline)
                index += multiline ? 2 : 0
                atLineStart = false
            case "[" where depth == 0 && atLineStart:
                var next = index + 1
                if next < scalars.count && scalars[next] == "[" { next += 1 }
                while next < scalars.count && (scalars[next] == " " || scalars[next] == "\t") { next += 1 }
                if next < scalars.count, !Self.startsKey(scalars[next]) { return line }
                index = next - 1
                atLineStart = false
            case "[", "{":
                depth += 1
                atLineStart = false
            case "]", "}":
                depth = max(0, depth - 1)
                atLineStart = false
            default:
                atLineStart = false
            }
            index += 1
        }
        return nil
    }

    /// Whether a key can start with `scalar` (a bare key's character, a quote), or the header closes there (an error of its own).
    private static func startsKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'", "]": return true
        default: return false
        }
    }

    /// The one-line error `name: line N: problem`.
    func error(_ line: Int, _ problem: String) -> TOMLFileError {
        TOMLFileError("\(name): line \(line): \(problem)")
    }
}

/// Finds the line of a key in a TOML file's text, for error messages
/// (TOMLKit's tables keep no positions): the first line that sets the key
/// in the right table.
struct TOMLLines {
    let lines: [Substring]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The first line that sets top-level `key` (or opens a table of that name); 1 when none does.
    func first(_ key: String) -> Int {
        lines.firstIndex { Self.names($0, key) }.map { $0 + 1 } ?? 1
    }

    /// The line that sets `key` (its last part) in the `number`th `[[array]]`
    /// table (from 1), or in `[array]` when `number` is nil.
    func line(of key: String, in array: String, number: Int? = nil) -> Int {
        let header = number == nil ? "[\(array)]" : "[[\(array)]]"
        var seen = 0
        var start: Int?
        for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix(header) {
            seen += 1
            if seen == (number ?? 1) { start = index; break }
        }
        guard let start else { return first(array) }
        let last = key.split(separator: ".").last.map(String.init) ?? key
        for index in start..<lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if index > start, trimmed.hasPrefix("[") && !trimmed.hasPrefix("[\(array).") { break }
            if Self.names(lines[index], last, in: array) { return index + 1 }
        }
        return start + 1
    }

    private static func names(_ line: Substring, _ key: String, in table: String? = nil) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let quoted = "\"\(key)\""
        for spelling in [key, quoted] where trimmed.hasPrefix(spelling) {
            if trimmed.dropFirst(spelling.count).drop(while: { $0 == " " }).first == "=" { return true }
        }
        return trimmed.hasPrefix("[" + key) || trimmed.hasPrefix("[[" + key)
            || table.map { trimmed.hasPrefix("[\($0)." + key) } == true
    }
}
