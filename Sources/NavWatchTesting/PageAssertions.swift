import Foundation
import NavWatch
import Testing

/// The web-first assertions about a view's page that `expect(_:timeout:)`
/// returns, as Playwright's `PageAssertions`; they retry as
/// `LocatorAssertions` do.
@WebKitActor
public struct PageAssertions {
    let view: WebView
    let timeout: Duration
    let isNot: Bool

    /// The same assertions, negated.
    public var not: PageAssertions { PageAssertions(view: view, timeout: timeout, isNot: !isNot) }

    /// The page's URL (`location.href`, same-document navigations included) is `expected`.
    public func toHaveURL(_ expected: String, timeout: Duration? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toHaveURL(\(quoted(expected)))", expected: quoted(expected), timeout: timeout,
                       sourceLocation: sourceLocation) {
            let url = try await currentURL()
            return (url == expected, quoted(url))
        }
    }

    /// The page's URL has a match of `regex`.
    public func toHaveURL<Output>(_ regex: Regex<Output>, timeout: Duration? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toHaveURL(/…/)", expected: "a URL matching the Regex", timeout: timeout,
                       sourceLocation: sourceLocation) {
            let url = try await currentURL()
            return ((try? regex.firstMatch(in: url)) != nil, quoted(url))
        }
    }

    /// The document's title is `expected`, whitespace collapsed.
    public func toHaveTitle(_ expected: String, timeout: Duration? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toHaveTitle(\(quoted(expected)))", expected: quoted(expected), timeout: timeout,
                       sourceLocation: sourceLocation) {
            let title = try await currentTitle()
            return (normalized(title) == normalized(expected), quoted(title))
        }
    }

    /// The document's title has a match of `regex`.
    public func toHaveTitle<Output>(_ regex: Regex<Output>, timeout: Duration? = nil,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await poll("toHaveTitle(/…/)", expected: "a title matching the Regex", timeout: timeout,
                       sourceLocation: sourceLocation) {
            let title = try await currentTitle()
            return ((try? regex.firstMatch(in: title)) != nil, quoted(title))
        }
    }

    private func currentURL() async throws(InteractionError) -> String {
        do { return try await view.currentURL() } catch { throw .script(error) }
    }

    private func currentTitle() async throws(InteractionError) -> String {
        do { return try await view.title() } catch { throw .script(error) }
    }

    private func poll(_ name: String, expected: String, timeout: Duration?, sourceLocation: SourceLocation,
                      probe: @escaping @WebKitActor () async throws -> (holds: Bool, received: String))
        async throws
    {
        let poll = AssertionPoll(view: view, subject: "page", timeout: timeout ?? self.timeout, isNot: isNot)
        let root = view.locator(":root")
        try await poll.run(name, expected: expected, sourceLocation: sourceLocation, probe: probe) { interval in
            await root.waitForChange(upTo: interval)
        }
    }
}
