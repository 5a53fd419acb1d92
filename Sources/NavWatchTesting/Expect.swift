@_exported import NavWatch
import Testing

/// Web-first assertions about what `locator` matches, as Playwright's
/// `expect(locator)`: each one retries until it holds or `timeout` passes.
///
///     try await expect(view.getByTestId("todo-count")).toHaveText("3 items left")
///     try await expect(view.getByRole("button", name: "Clear completed")).not.toBeVisible()
///
/// - Parameters:
///   - locator: what the assertions are about, resolved anew at every check.
///   - timeout: how long each assertion may wait; nil takes
///     `ExpectTimeout.current` (5 s unless a suite sets it with
///     `.expectTimeout(_:)`).
@WebKitActor
public func expect(_ locator: Locator, timeout: Duration? = nil) -> LocatorAssertions {
    LocatorAssertions(locator: locator, timeout: timeout ?? ExpectTimeout.current, isNot: false)
}

/// Web-first assertions about the page `view` shows (`toHaveURL`,
/// `toHaveTitle`), retried as `expect(_:timeout:)` of a locator's are.
@WebKitActor
public func expect(_ view: WebView, timeout: Duration? = nil) -> PageAssertions {
    PageAssertions(view: view, timeout: timeout ?? ExpectTimeout.current, isNot: false)
}

/// How long assertions wait when a call gives no timeout.
public enum ExpectTimeout {
    /// The time assertions wait when the suite does not say: 5 s, as Playwright's.
    public static let standard: Duration = .seconds(5)

    /// The time assertions wait now: `standard`, or what the running test's
    /// `.expectTimeout(_:)` trait sets.
    public static var current: Duration { override ?? standard }

    @TaskLocal static var override: Duration?
}

/// Sets how long the web-first assertions of a test or suite wait.
public struct ExpectTimeoutTrait: TestTrait, SuiteTrait, TestScoping {
    /// The time each assertion waits.
    public var timeout: Duration

    /// Applies to every test in a suite, not only to the suite itself.
    public var isRecursive: Bool { true }

    /// Runs the test with `ExpectTimeout.current` set to `timeout`.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await ExpectTimeout.$override.withValue(timeout) { try await function() }
    }
}

extension Trait where Self == ExpectTimeoutTrait {
    /// Web-first assertions in this test or suite wait up to `timeout`
    /// (instead of 5 s) unless a call gives its own.
    public static func expectTimeout(_ timeout: Duration) -> Self { ExpectTimeoutTrait(timeout: timeout) }
}
