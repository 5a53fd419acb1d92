import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
@testable import NavWatchRx
import Synchronization
import Testing
import WebKitThread

private let server = Task { try await LoopbackServer.start(route: FixtureSite.route) }

/// A forward delegate that counts what it was asked and can answer policies.
@WebKitActor
private final class CountingDelegate: NavigationDelegate {
    var finished: [Navigation] = []
    var actionQuestions = 0
    var policy: NavigationActionPolicy = .allow
    var onFinish: (() -> Void)?

    func webView(_ webView: WebView, didFinish navigation: Navigation) {
        finished.append(navigation)
        onFinish?()
    }

    func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        actionQuestions += 1
        return policy
    }
}

/// Collects a sequence up to the first element `stop` accepts (inclusive),
/// or to its end when there is no `stop`, within the event deadline.
private func collect<S: AsyncSequence & Sendable>(_ sequence: S, until stop: (@Sendable (S.Element) -> Bool)? = nil)
    async throws -> [S.Element] where S.Element: Sendable, S.Failure == Never {
    let log = EventLog(sequence)
    guard let stop else { return try await log.rest() }
    return try await log.until("the element that ends the collection", stop)
}

@Suite("DelegateProxy contract")
@WebKitActor
struct DelegateProxyTests {
    @Test("proxy(for:) returns the same proxy every time and installs it as the delegate")
    func identity() throws {
        let view = try WebView()
        defer { view.close() }
        let first = NavigationDelegateProxy.proxy(for: view)
        let second = NavigationDelegateProxy.proxy(for: view)
        #expect(first === second)
        #expect(view.navigationDelegate === first)
        #expect(view.rx.delegate === first)
        let other = try WebView()
        defer { other.close() }
        #expect(NavigationDelegateProxy.proxy(for: other) !== first)
    }

    @Test("a delegate set before the proxy becomes its weak forward delegate and keeps receiving calls")
    func existingDelegateForwarded() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        var delegate: CountingDelegate? = CountingDelegate()
        view.navigationDelegate = delegate
        let finished = view.rx.didFinish
        #expect(view.rx.delegate.forwardDelegate === delegate)
        try view.load(server.url("/page"))
        let navigation = try await collect(finished) { _ in true }
        #expect(delegate?.finished == navigation)
        delegate = nil
        #expect(view.rx.delegate.forwardDelegate == nil)
    }

    @Test("installForwardDelegate returns a token that removes exactly that delegate")
    func installAndCancel() throws {
        let view = try WebView()
        defer { view.close() }
        let proxy = view.rx.delegate
        let first = CountingDelegate(), second = CountingDelegate()
        let firstToken = proxy.installForwardDelegate(first, retainDelegate: false)
        let secondToken = proxy.installForwardDelegate(second, retainDelegate: true)
        #expect(proxy.forwardDelegate === second)
        secondToken.cancel()
        #expect(proxy.forwardDelegate === first)
        secondToken.cancel()
        #expect(proxy.forwardDelegate === first)
        firstToken.cancel()
        #expect(proxy.forwardDelegate == nil)
    }

    @Test("a retained forward delegate lives as long as it is installed")
    func retainedDelegate() throws {
        let view = try WebView()
        defer { view.close() }
        weak var weakDelegate: CountingDelegate?
        let token: ForwardDelegateToken
        do {
            let delegate = CountingDelegate()
            weakDelegate = delegate
            token = view.rx.delegate.installForwardDelegate(delegate, retainDelegate: true)
        }
        #expect(weakDelegate != nil)
        token.cancel()
        #expect(weakDelegate == nil)
    }

    @Test("the forward delegate answers a policy exactly once; observers only watch")
    func policyWithForwardDelegate() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let delegate = CountingDelegate()
        delegate.policy = .cancel
        let token = view.rx.delegate.installForwardDelegate(delegate, retainDelegate: false)
        defer { token.cancel() }
        let watchedA = view.rx.decidePolicyNavigationAction
        let watchedB = view.rx.decidePolicyNavigationAction
        let outcome = try await view.rx.pageLoad(server.url("/page"))
        guard case .failed(_, let error, nil) = outcome else { Issue.record("expected a failure, got \(outcome)"); return }
        #expect(error.kind == .policy)
        #expect(delegate.actionQuestions == 1)
        #expect(try await collect(watchedA) { _ in true }.map(\.url) == [server.url("/page")])
        #expect(try await collect(watchedB) { _ in true }.map(\.url) == [server.url("/page")])
    }

    @Test("with no forward delegate a policy is answered by the default, allow")
    func policyDefault() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let watched = view.rx.decidePolicyNavigationAction
        let outcome = try await view.rx.pageLoad(server.url("/page"))
        guard case .finished(_, let response?, _) = outcome else { Issue.record("expected a finish, got \(outcome)"); return }
        #expect(response.statusCode == 200)
        #expect(try await collect(watched) { _ in true }.map(\.url) == [server.url("/page")])
    }

    @Test("sentMessage observers get a call before the forward delegate runs, methodInvoked observers after")
    func sentMessageBeforeMethodInvokedAfter() async throws {
        let server = try await server.value
        let view = try WebView()
        defer { view.close() }
        let proxy = view.rx.delegate
        let delegate = CountingDelegate()
        // Completing every stream from inside the forward delegate shows which
        // side of the call each stream's event was sent on.
        delegate.onFinish = { proxy.completeAll() }
        let token = proxy.installForwardDelegate(delegate, retainDelegate: false)
        defer { token.cancel() }
        let sent = proxy.sentMessage
        let invoked = proxy.methodInvoked
        try view.load(server.url("/page"))
        let sentEvents = try await collect(sent).compactMap(\.navigationEvent)
        let invokedEvents = try await collect(invoked).compactMap(\.navigationEvent)
        #expect(sentEvents.map(\.isTerminal) == [false, false, true])
        #expect(invokedEvents.map(\.isTerminal) == [false, false])
        #expect(delegate.finished.count == 1)
    }
}
