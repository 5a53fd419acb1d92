import Foundation

/// What a view did while it was traced (`WebView.tracing`): each step a test
/// took (a load, an action, an assertion) with its time and a screenshot
/// after it, and the console, the page's errors and every request in that
/// time. `html()` makes one self-contained page of it.
public struct Trace: Sendable, Hashable, Codable {
    /// One step: `goto http://…`, `click getByRole("button", name: "Save")`,
    /// `expect(getByTestId("count")).toHaveText("3")`.
    public struct Step: Sendable, Hashable, Codable {
        public var title: String
        /// When it started and how long it took, in milliseconds from the trace's start.
        public var startMilliseconds: Double
        public var durationMilliseconds: Double
        /// Why it failed; nil when it did not.
        public var error: String?
        /// A PNG of the viewport just after it; nil without screenshots, or when none could be taken.
        public var screenshot: Data?
    }

    /// A console message or an uncaught error of the page.
    public struct Message: Sendable, Hashable, Codable {
        public var milliseconds: Double
        /// The console level (`log`, `warn`, `error`, ...), or `pageerror`.
        public var level: String
        public var text: String
        /// Where it came from (`url:line`), when known.
        public var location: String?
    }

    /// A request of the page and how it ended.
    public struct Request: Sendable, Hashable, Codable {
        public var milliseconds: Double
        public var method: String
        public var url: String
        /// The HTTP status; nil when it failed or had not ended when the trace stopped.
        public var status: Int?
        public var mimeType: String?
        public var durationMilliseconds: Double?
        /// Why it failed, when it did.
        public var failure: String?
    }

    /// What the trace is of (the test's name, or what `start(title:)` was given).
    public var title: String
    public var startedAt: Date
    public var steps: [Step] = []
    public var messages: [Message] = []
    public var requests: [Request] = []
}
