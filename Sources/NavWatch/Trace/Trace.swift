import Foundation

/// What a view did while it was traced (`WebView.tracing`): each step a test
/// took (a load, an action, an assertion) with its time and a screenshot
/// after it, and the console, the page's errors and every request in that
/// time. `html()` makes one self-contained page of it.
public struct Trace: Sendable, Hashable, Codable {
    /// One step: `goto http://…`, `click getByRole("button", name: "Save")`,
    /// `expect(getByTestId("count")).toHaveText("3")`.
    public struct Step: Sendable, Hashable, Codable {
        /// What the step did, as the test wrote it.
        public var title: String
        /// When it started, in milliseconds from the trace's start.
        public var startMilliseconds: Double
        /// How long it took, in milliseconds.
        public var durationMilliseconds: Double
        /// Why it failed; nil when it did not.
        public var error: String?
        /// A JPEG of the viewport just after it (`Tracing.screenshotType`), at
        /// most `Tracing.screenshotWidth` pixels wide; nil without screenshots,
        /// or when none could be taken.
        public var screenshot: Data?
    }

    /// A console message or an uncaught error of the page.
    public struct Message: Sendable, Hashable, Codable {
        /// When it came, in milliseconds from the trace's start.
        public var milliseconds: Double
        /// The console level (`log`, `warn`, `error`, ...), or `pageerror`.
        public var level: String
        /// The message, or the error's.
        public var text: String
        /// Where it came from (`url:line`), when known.
        public var location: String?
    }

    /// A request of the page and how it ended.
    public struct Request: Sendable, Hashable, Codable {
        /// When it started, in milliseconds from the trace's start.
        public var milliseconds: Double
        /// Its HTTP method (`GET` when WebKit did not say).
        public var method: String
        /// The URL asked for.
        public var url: String
        /// The HTTP status; nil when it failed or had not ended when the trace stopped.
        public var status: Int?
        /// The response's MIME type, when it had one.
        public var mimeType: String?
        /// How long it took, in milliseconds, once it ended.
        public var durationMilliseconds: Double?
        /// Why it failed, when it did.
        public var failure: String?
        /// True when a route of the view (NavWatchTesting's `route`) answered
        /// it: fulfilled, aborted or continued it; nil otherwise.
        public var routed: Bool?
    }

    /// What the trace is of (the test's name, or what `start(title:)` was given).
    public var title: String
    /// When `Tracing.start` was called.
    public var startedAt: Date
    /// The steps, in the order they started.
    public var steps: [Step] = []
    /// The console messages and uncaught errors, in the order they came.
    public var messages: [Message] = []
    /// The requests, in the order they started.
    public var requests: [Request] = []
}
