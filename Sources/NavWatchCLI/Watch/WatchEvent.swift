import Foundation
import NavWatch

/// One line of `navwatch` output: what happened, to which navigation, when.
/// Its JSON form is the `--json` schema documented in the README.
public struct WatchEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case started, redirected, committed, finished, failed, terminated
        case sameDocument = "same-document", newWindow = "new-window", dialog, download
        case resourceStarted = "resource-started", resourceFinished = "resource-finished", resourceFailed = "resource-failed"
        case console, pageError = "page-error"

        /// Whether this line is about the page's console or errors, not its loading.
        public var isPageMessage: Bool { self == .console || self == .pageError }

        /// Whether this line ends its navigation.
        public var isTerminal: Bool { self == .finished || self == .failed || self == .terminated }
    }

    public var kind: Kind
    /// The navigation number, from 1, in the order navigations started.
    public var nav: Int
    public var url: String
    /// Milliseconds since the navigation started.
    public var milliseconds: Double
    public var status: Int?
    public var mime: String?
    public var title: String?
    public var provisional: Bool?
    public var error: NavigationError?
    /// A console message's level (`debug`, `log`, `info`, `warn`, `error`).
    public var level: String?
    /// A console message's text or a page error's message.
    public var message: String?
    /// Where in `url` a console message or page error came from, 1-based.
    public var line: Int?
    public var column: Int?
    /// Text for people only (a dialog's message); not part of the JSON.
    public var note: String?

    public init(kind: Kind, nav: Int, url: String, milliseconds: Double, status: Int? = nil, mime: String? = nil,
                title: String? = nil, provisional: Bool? = nil, error: NavigationError? = nil, level: String? = nil,
                message: String? = nil, line: Int? = nil, column: Int? = nil, note: String? = nil) {
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
        self.note = note
    }

    /// One JSON object, keys in schema order, no trailing newline.
    public var jsonLine: String {
        var fields: [(String, String)] = [
            ("event", JSON.string(kind.rawValue)),
            ("nav", String(nav)),
            ("url", url.isEmpty && kind.isPageMessage ? "null" : JSON.string(url)),
            ("t_ms", JSON.number(milliseconds)),
        ]
        if let status { fields.append(("status", String(status))) }
        if let mime { fields.append(("mime", JSON.string(mime))) }
        if let title { fields.append(("title", JSON.string(title))) }
        if let provisional { fields.append(("provisional", provisional ? "true" : "false")) }
        if let level { fields.append(("level", JSON.string(level))) }
        if let message { fields.append(("message", JSON.string(message))) }
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
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
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
