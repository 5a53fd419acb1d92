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

    /// One JSON object, no trailing newline: the `--json` line, keys
    /// sorted as in every JSON navwatch writes.
    package var jsonLine: String { JSONText.of(self) }
}

extension WatchEvent: Encodable {
    private enum CodingKeys: String, CodingKey {
        case event, nav, url, milliseconds = "t_ms", sameDocumentKind = "kind", status, mime, title, provisional, level
        case dialogType = "type", message, answer, answerText = "text", line, column, error
    }

    private enum ErrorKeys: String, CodingKey {
        case kind, domain, code, message
    }

    /// The `--json` schema (NavWatchCLI.docc/CommandLine.md): absent where
    /// unknown, but `url`, `line` and (on `page-error`) `column` are null
    /// on a page's message that has none; `t_ms` to a tenth of a millisecond.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .event)
        try container.encode(nav, forKey: .nav)
        try container.encode(url.isEmpty && kind.isPageMessage ? nil : url, forKey: .url)
        try container.encode((milliseconds * 10).rounded() / 10, forKey: .milliseconds)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(provisional, forKey: .provisional)
        let texts: [(String?, CodingKeys)] = [(sameDocumentKind?.rawValue, .sameDocumentKind), (mime, .mime), (title, .title),
                                              (level, .level), (dialogType, .dialogType), (message, .message),
                                              (answer, .answer), (answerText, .answerText)]
        for (text, key) in texts { try container.encodeIfPresent(text, forKey: key) }
        if kind.isPageMessage {
            try container.encode(line, forKey: .line)
            if kind == .pageError { try container.encode(column, forKey: .column) }
        }
        if let error {
            var object = container.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
            try object.encode(error.kind.rawValue, forKey: .kind)
            try object.encode(error.domain, forKey: .domain)
            try object.encode(error.code, forKey: .code)
            try object.encode(error.message, forKey: .message)
        }
    }
}
