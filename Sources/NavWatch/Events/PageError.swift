import Foundation

/// An error the page's JavaScript did not catch: an uncaught exception
/// (syntax errors included) or a promise rejection nobody handled, in the
/// top-level document.
///
/// Observed from navwatch's own script world from the document's start: the
/// page cannot see or remove the observer, setting `window.onerror` (even to a
/// handler that returns `true`) does not hide an error, and an error event the
/// page dispatches itself is not one. (WebKit marks its own rejection events
/// as untrusted, so a rejection event the page dispatches itself does count;
/// its location is still read from its reason's own stack.)
public struct PageError: Sendable, Hashable {
    /// What the page failed to handle. The raw values are the spellings of
    /// navwatch's JSON output.
    public enum Kind: String, Sendable, Hashable {
        /// An exception no script caught (a syntax error included).
        case uncaughtException = "uncaught-exception"
        /// A rejected promise that had no rejection handler.
        case unhandledRejection = "unhandled-rejection"
    }

    /// Whether it was an exception or a rejection.
    public let kind: Kind
    /// As the engine words it: `TypeError: boom` for an exception, the
    /// rejection's reason as a string (`Error: nobody caught me`) for a rejection.
    public let message: String
    /// The script or page it was thrown in, when known; for a rejection, where
    /// its reason (an `Error`) was created.
    public let url: URL?
    /// 1-based, when known.
    public let line: Int?
    /// 1-based, when known.
    public let column: Int?
    /// The JavaScript stack (`function@url:line:column` per line), when the
    /// thrown value is an `Error`.
    public let stack: String?
    /// The navigation whose document was shown when the error arrived.
    public let navigation: Navigation?

    /// Makes an error from its parts, for tests and for replaying stored
    /// reports; a view reports the ones it observes itself.
    public init(kind: Kind, message: String, url: URL?, line: Int?, column: Int?, stack: String?,
                navigation: Navigation?) {
        self.kind = kind
        self.message = message
        self.url = url
        self.line = line
        self.column = column
        self.stack = stack
        self.navigation = navigation
    }
}
