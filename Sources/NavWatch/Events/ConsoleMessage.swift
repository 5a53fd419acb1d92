import Foundation

/// A message the page's console received: a `console` call of its scripts
/// or a report of the engine (a resource that failed to load, a security
/// refusal), as the engine's console shows it.
///
/// Console calls are seen by navwatch's web process extension, which wraps
/// every frame's `console` before any script of the document runs; a page
/// cannot reach what it reports through, or move where a call came from, and
/// a page that replaces `console.log` only changes what its own later calls
/// do. Uncaught errors and unhandled rejections are not console messages
/// here: they arrive as `PageError`s. Nor is the engine's report of the main
/// document's own error status or failure: that is the navigation's.
public struct ConsoleMessage: Sendable, Hashable {
    /// How severe the message is: the `console` method that wrote it, or the
    /// engine's own level. The raw values are the spellings of navwatch's JSON
    /// output.
    public enum Level: String, Sendable, Hashable, CaseIterable {
        /// `console.debug`, `console.log`, `console.info`, `console.warn` and
        /// `console.error`, and the engine's messages of the same levels.
        case debug, log, info, warning = "warn", error
    }

    /// Who wrote it.
    public enum Source: String, Sendable, Hashable {
        /// A `console` method called by a script.
        case consoleAPI = "console-api"
        /// The JavaScript engine.
        case javaScript = "javascript"
        /// The network (a resource that failed or answered with an error).
        case network
        /// A security check (content security policy, mixed content, CORS).
        case security
        /// Any other source the engine names.
        case other
    }

    /// How severe it is.
    public let level: Level
    /// Who wrote it: a script or the engine.
    public let source: Source
    /// The text: for a `console` call, its arguments joined by spaces
    /// (strings as they are, objects as JSON, anything else as `String(_:)`
    /// gives it: `console.log("a", 1, {b: 2})` gives `a 1 {"b":2}`).
    public let text: String
    /// The script, page or resource it came from, when known.
    public let url: URL?
    /// The line in `url` (1-based), when known. For a `console` call it is
    /// read from the JavaScript stack, which JavaScriptCore sometimes leaves
    /// the calling script's top level out of: such a call has `url` (the
    /// running script) but no line.
    public let line: Int?
    /// The navigation whose document was shown when the message arrived.
    public let navigation: Navigation?

    /// Makes a message from its parts, for tests and for replaying stored
    /// reports; a view reports the ones its pages log itself.
    public init(level: Level, source: Source, text: String, url: URL?, line: Int?, navigation: Navigation?) {
        self.level = level
        self.source = source
        self.text = text
        self.url = url
        self.line = line
        self.navigation = navigation
    }
}
