import Foundation
import NavWatch
import NavWatchCrawler

/// One line of `navwatch` output: what happened, to which navigation, when.
/// Its JSON form is the `--json` schema documented in NavWatchCLI.docc/CommandLine.md.
package struct WatchEvent: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case started, redirected, committed, finished, failed, terminated
        case sameDocument = "same-document", newWindow = "new-window", dialog, download
        case resourceStarted = "resource-started", resourceFinished = "resource-finished", resourceFailed = "resource-failed"
        case console, pageError = "page-error"

        /// Whether this line is about the page's console or errors, not its loading.
        package var isPageMessage: Bool { self == .console || self == .pageError }

        /// Whether this line ends its navigation.
        package var isTerminal: Bool { self == .finished || self == .failed || self == .terminated }
    }

    package var kind: Kind
    /// The navigation number, from 1, in the order navigations started.
    package var nav: Int
    package var url: String
    /// Milliseconds since the navigation started.
    package var milliseconds: Double
    package var status: Int?
    package var mime: String?
    package var title: String?
    package var provisional: Bool?
    package var error: NavigationError?
    /// A console message's level (`debug`, `log`, `info`, `warn`, `error`).
    package var level: String?
    /// A console message's text or a page error's message.
    package var message: String?
    /// Where in `url` a console message or page error came from, 1-based.
    package var line: Int?
    package var column: Int?
    /// How a same-document navigation changed the URL: `push`, `replace`, `pop` or `fragment`.
    package var sameDocumentKind: SameDocumentNavigation.Kind?
    /// A dialog's type: `alert`, `confirm`, `prompt` or `beforeunload`.
    package var dialogType: String?
    /// How a dialog was answered: `accepted` or `dismissed`.
    package var answer: String?
    /// The text an accepted prompt was answered with.
    package var answerText: String?

    package init(kind: Kind, nav: Int, url: String, milliseconds: Double, status: Int? = nil, mime: String? = nil,
                title: String? = nil, provisional: Bool? = nil, error: NavigationError? = nil, level: String? = nil,
                message: String? = nil, line: Int? = nil, column: Int? = nil,
                sameDocumentKind: SameDocumentNavigation.Kind? = nil, dialog: PageLoadReport.DialogInfo? = nil) {
        self.kind = kind
        self.nav = nav
        self.url = url
        self.milliseconds = milliseconds
        self.status = status
        self.mime = mime
        self.title = title
        self.provisional = provisional
        self.error = error
        self.level = level
        self.message = message
        self.line = line
        self.column = column
        self.sameDocumentKind = sameDocumentKind
        dialogType = dialog?.type
        answer = dialog?.answer
        answerText = dialog?.text
    }

    /// One JSON object, keys in schema order, no trailing newline.
    package var jsonLine: String {
        var fields: [(String, String)] = [
            ("event", JSON.string(kind.rawValue)),
            ("nav", String(nav)),
            ("url", url.isEmpty && kind.isPageMessage ? "null" : JSON.string(url)),
            ("t_ms", JSON.number(milliseconds)),
        ]
        if let sameDocumentKind { fields.append(("kind", JSON.string(sameDocumentKind.rawValue))) }
        if let status { fields.append(("status", String(status))) }
        if let mime { fields.append(("mime", JSON.string(mime))) }
        if let title { fields.append(("title", JSON.string(title))) }
        if let provisional { fields.append(("provisional", provisional ? "true" : "false")) }
        if let level { fields.append(("level", JSON.string(level))) }
        if let dialogType { fields.append(("type", JSON.string(dialogType))) }
        if let message { fields.append(("message", JSON.string(message))) }
        if let answer { fields.append(("answer", JSON.string(answer))) }
        if let answerText { fields.append(("text", JSON.string(answerText))) }
        if kind.isPageMessage {
            fields.append(("line", line.map(String.init) ?? "null"))
            if kind == .pageError { fields.append(("column", column.map(String.init) ?? "null")) }
        }
        if let error {
            fields.append(("error", JSON.object([
                ("kind", JSON.string(error.kind.rawValue)),
                ("domain", JSON.string(error.domain)),
                ("code", String(error.code)),
                ("message", JSON.string(error.message)),
            ])))
        }
        return JSON.object(fields)
    }
}

/// Minimal JSON text building with a fixed key order.
enum JSON {
    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded.magnitude < 1e15 && rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
