import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing
@testable import NavWatchHTTP

@Suite("HTTPChecker") struct HTTPCheckerTests {
    @Test("a page that answers HEAD is checked with HEAD alone")
    func headAnswered() async throws {
        try await withSite { server, checker, log in
            let url = server.url("/ok")
            let result = try await withDeadline("the check") { await checker.check(url) }
            var expected = HTTPCheckResult(url: url, finalURL: url, status: 200, method: "HEAD")
            expected.mimeType = "text/html"
            #expect(result == expected)
            #expect(log.all == ["HEAD /ok \(TestSite.userAgent)"])
        }
    }

    @Test("HEAD answered 405: the same URL is asked with GET, whose answer counts")
    func headRefused() async throws {
        try await withSite { server, checker, log in
            let url = server.url("/head-refused")
            let result = try await withDeadline("the check") { await checker.check(url) }
            var expected = HTTPCheckResult(url: url, finalURL: url, status: 200, method: "GET")
            expected.mimeType = "text/plain"
            #expect(result == expected)
            #expect(log.all == ["HEAD /head-refused \(TestSite.userAgent)", "GET /head-refused \(TestSite.userAgent)"])
        }
    }

    @Test("a 404 is an answer, not an error")
    func notFound() async throws {
        try await withSite { server, checker, _ in
            let url = server.url("/missing")
            let result = try await withDeadline("the check") { await checker.check(url) }
            var expected = HTTPCheckResult(url: url, finalURL: url, status: 404, method: "HEAD")
            expected.mimeType = "text/html"
            #expect(result == expected)
        }
    }

    @Test("a redirect chain (absolute path, relative path, absolute URL) to a 404 records every hop")
    func redirectChain() async throws {
        try await withSite { server, checker, log in
            let url = server.url("/chain/1")
            let result = try await withDeadline("the check") { await checker.check(url) }
            var expected = HTTPCheckResult(url: url, finalURL: server.url("/missing"), status: 404, method: "HEAD")
            expected.mimeType = "text/html"
            expected.redirects = [
                .init(url: server.url("/chain/1"), status: 301),
                .init(url: server.url("/chain/2"), status: 302),
                .init(url: server.url("/chain/3"), status: 307),
            ]
            #expect(result == expected)
            #expect(log.all.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                    == ["HEAD /chain/1", "HEAD /chain/2", "HEAD /chain/3", "HEAD /missing"])
        }
    }

    @Test("a redirect loop ends in too-many-redirects after the limit")
    func redirectLoop() async throws {
        try await withSite { server, checker, log in
            let url = server.url("/loop")
            let result = try await withDeadline("the check") { await checker.check(url) }
            #expect(result.status == nil)
            #expect(result.errorKind == .tooManyRedirects)
            #expect(result.errorMessage == "more than 10 redirects")
            #expect(result.finalURL == url)
            #expect(result.redirects == Array(repeating: .init(url: url, status: 302), count: HTTPChecker.maximumRedirects + 1))
            #expect(log.all.count == HTTPChecker.maximumRedirects + 1)
        }
    }

    @Test("429 with Retry-After: 1")
    func retryAfter() async throws {
        try await withSite { server, checker, _ in
            let url = server.url("/busy")
            let result = try await withDeadline("the check") { await checker.check(url) }
            var expected = HTTPCheckResult(url: url, finalURL: url, status: 429, method: "HEAD")
            expected.mimeType = "text/plain"
            expected.retryAfter = 1
            #expect(result == expected)
        }
    }

    @Test("Retry-After as delta-seconds or an HTTP date, never negative")
    func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 784_111_747)   // Sun, 06 Nov 1994 08:49:07 GMT
        #expect(RetryAfter.seconds(from: "120", now: now) == 120)
        #expect(RetryAfter.seconds(from: " 0 ", now: now) == 0)
        #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 30)
        #expect(RetryAfter.seconds(from: "Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 30)
        #expect(RetryAfter.seconds(from: "Sun Nov  6 08:49:37 1994", now: now) == 30)
        #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:48:37 GMT", now: now) == 0)
        #expect(RetryAfter.seconds(from: "-5", now: now) == nil)
        #expect(RetryAfter.seconds(from: "soon", now: now) == nil)
    }

    @Test("only http and https are asked: Unix-socket URLs fail as policy and the socket sees no connection, redirects included")
    func unixSocketSchemes() async throws {
        let socket = try UnixSocketListener()
        defer { socket.shutdown() }
        let unixURLs = ["http+unix://\(socket.encodedPath)/anything", "https+unix://\(socket.encodedPath)/anything",
                        "unix://\(socket.path)", "HTTP+UNIX://\(socket.encodedPath)/x"]
        let redirecting = try await LoopbackServer.start { _ in .redirect(to: unixURLs[0], status: 302) }
        defer { Task { await redirecting.shutdown() } }
        let checker = HTTPChecker(userAgent: TestSite.userAgent, timeout: .seconds(5))
        for text in unixURLs {
            let url = try #require(URL(string: text))
            let checked = try await withDeadline("the check of \(text)") { await checker.check(url) }
            #expect(checked.status == nil && checked.errorKind == .policy, "\(text)")
            #expect(checked.errorMessage?.hasSuffix("only http and https URLs are fetched, not \(url.scheme!)") == true)
            let fetched = try await withDeadline("the fetch of \(text)") { await checker.get(url, maxBytes: 1000) }
            #expect(fetched.status == nil && fetched.failure?.kind == .policy, "\(text)")
        }
        // A redirect to a Unix socket is not followed: the check ends there, as policy, the hop recorded.
        let redirected = try await withDeadline("the check") { await checker.check(redirecting.url("/")) }
        #expect(redirected.status == nil && redirected.errorKind == .policy)
        #expect(redirected.redirects == [HTTPCheckResult.Hop(url: redirecting.url("/"), status: 302)])
        #expect(redirected.errorMessage == "\(unixURLs[0]): only http and https URLs are fetched, not http+unix")
        await checker.shutdown()
        #expect(socket.connections == 0)
    }

    @Test("a port nothing listens on: connection-refused, at once")
    func connectionRefused() async throws {
        let port = try RefusingPort()
        let url = try #require(URL(string: port.url))
        let checker = HTTPChecker(userAgent: TestSite.userAgent, timeout: .seconds(5))
        let started = ContinuousClock.now
        let result = try? await withDeadline("the check") { await checker.check(url) }
        let elapsed = ContinuousClock.now - started
        await checker.shutdown()
        #expect(result?.status == nil)
        #expect(result?.errorKind == .connectionRefused)
        #expect(result?.errorMessage == "127.0.0.1:\(port.port) refused the connection")
        #expect(result?.method == "HEAD")
        #expect(elapsed < .seconds(2))
    }

    @Test("a host name that does not resolve: dns")
    func unresolvableHost() async throws {
        let url = try #require(URL(string: "http://navwatch-test.invalid/"))
        let checker = HTTPChecker(userAgent: TestSite.userAgent, timeout: .seconds(5))
        let result = try? await withDeadline("the check") { await checker.check(url) }
        await checker.shutdown()
        #expect(result?.status == nil)
        #expect(result?.errorKind == .dns)
        #expect(result?.errorMessage?.hasPrefix("the host name navwatch-test.invalid did not resolve") == true)
    }

    @Test("a server that never answers: timeout, within the timeout plus a margin")
    func timeout() async throws {
        try await withSite(timeout: .milliseconds(500)) { server, checker, _ in
            let url = server.url("/hang")
            let started = ContinuousClock.now
            let result = try await withDeadline("the check") { await checker.check(url) }
            let elapsed = ContinuousClock.now - started
            #expect(result.status == nil)
            #expect(result.errorKind == .timeout)
            #expect(result.errorMessage == "no complete answer within 0.5 s")
            #expect(elapsed >= .milliseconds(450))
            #expect(elapsed < .milliseconds(2000))
        }
    }

    @Test("a body that never ends: fetch times out too")
    func fetchTimeout() async throws {
        let server = try await LoopbackServer.start(route: { _ in .stallAfterHeaders })
        let checker = HTTPChecker(userAgent: TestSite.userAgent, timeout: .milliseconds(500))
        let started = ContinuousClock.now
        let outcome = try? await withDeadline("the fetch") { await checker.get(server.url("/stall"), maxBytes: 1 << 20) }
        let elapsed = ContinuousClock.now - started
        await checker.shutdown()
        await server.shutdown()
        #expect(outcome?.status == nil)
        #expect(outcome?.body == Data())
        #expect(outcome?.failure?.kind == .timeout)
        #expect(elapsed >= .milliseconds(450))
        #expect(elapsed < .milliseconds(2000))
    }

    @Test("a connection reset in the middle of the body: fetch has no answer (connection-reset)")
    func fetchReset() async throws {
        try await withSite { server, checker, _ in
            let url = server.url("/reset")
            let outcome = try await withDeadline("the fetch") { await checker.get(url, maxBytes: 1 << 20) }
            #expect(outcome.status == nil)
            #expect(outcome.body == Data())
            #expect(outcome.failure?.kind == .connectionReset)
            let (status, body) = try await withDeadline("the fetch") { await checker.fetch(url) }
            #expect(status == nil)
            #expect(body == Data())
        }
    }

    @Test("fetch decodes a gzip Content-Encoding")
    func fetchGzip() async throws {
        try await withSite { server, checker, log in
            let (status, body) = try await withDeadline("the fetch") { await checker.fetch(server.url("/gzip")) }
            #expect(status == 200)
            #expect(String(decoding: body, as: UTF8.self) == TestSite.gzipText)
            #expect(log.all == ["GET /gzip \(TestSite.userAgent)"])
        }
    }

    @Test("fetch follows redirects and stops at maxBytes")
    func fetchRedirectsAndLimit() async throws {
        try await withSite { server, checker, _ in
            let (status, body) = try await withDeadline("the fetch") { await checker.fetch(server.url("/chain/1")) }
            #expect(status == 404)
            #expect(String(decoding: body, as: UTF8.self) == "<title>Missing</title>")
            let (bigStatus, bigBody) = try await withDeadline("the fetch") { await checker.fetch(server.url("/big"), maxBytes: 1234) }
            #expect(bigStatus == 200)
            #expect(bigBody == Data(String(repeating: "0123456789", count: 124).utf8.prefix(1234)))
        }
    }

    @Test("TLS: a self-signed certificate fails the check (tls) unless TLS errors are ignored")
    func tls() async throws {
        let server = try await LoopbackServer.start(tls: .loopbackTest, route: { _ in .html("<title>TLS</title>") })
        let strict = HTTPChecker(userAgent: TestSite.userAgent, timeout: .seconds(5))
        let lenient = HTTPChecker(userAgent: TestSite.userAgent, timeout: .seconds(5), ignoreTLSErrors: true)
        let url = server.url("/page")
        let refused = try? await withDeadline("the strict check") { await strict.check(url) }
        let accepted = try? await withDeadline("the lenient check") { await lenient.check(url) }
        await strict.shutdown()
        await lenient.shutdown()
        await server.shutdown()
        #expect(refused?.status == nil)
        #expect(refused?.errorKind == .tls)
        #expect(refused?.errorMessage == "TLS with 127.0.0.1:\(server.port) failed: certificate verify failed")
        #expect(accepted?.status == 200)
        #expect(accepted?.errorKind == nil)
    }

    @Test("cancelling the calling task ends a check at once: cancelled")
    func cancellation() async throws {
        try await withSite(timeout: .seconds(10)) { server, checker, _ in
            let url = server.url("/hang")
            let started = ContinuousClock.now
            let check = Task { await checker.check(url) }
            try await Task.sleep(for: .milliseconds(200))
            check.cancel()
            let result = try await withDeadline("the cancelled check") { await check.value }
            let elapsed = ContinuousClock.now - started
            #expect(result.status == nil)
            #expect(result.errorKind == .cancelled)
            #expect(result.errorMessage == "the request was cancelled")
            #expect(elapsed < .seconds(2))
        }
    }

    @Test("many checks at once on one checker")
    func concurrentChecks() async throws {
        try await withSite { server, checker, _ in
            let statuses = try await withDeadline("the checks") {
                await withTaskGroup(of: Int?.self) { group in
                    for index in 0..<40 {
                        group.addTask { await checker.check(server.url(index.isMultiple(of: 2) ? "/ok" : "/missing")).status }
                    }
                    var statuses: [Int?] = []
                    for await status in group { statuses.append(status) }
                    return statuses
                }
            }
            #expect(statuses.filter { $0 == 200 }.count == 20)
            #expect(statuses.filter { $0 == 404 }.count == 20)
        }
    }
}
