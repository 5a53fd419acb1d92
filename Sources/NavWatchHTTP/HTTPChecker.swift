import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Plain HTTP requests for what the crawler asks without a web view: whether
/// a link answers (`check`), and the bodies of robots.txt and sitemaps
/// (`fetch`).
///
/// One checker owns one AsyncHTTPClient `HTTPClient` (on the process-wide
/// singleton event loop group) and its connection pool. It is `Sendable`:
/// any number of tasks may check and fetch at the same time.
///
/// - Only http and https URLs are asked (`schemes`), whoever calls and
///   wherever the URL came from (a robots.txt, a sitemap, a redirect).
/// - Redirects (301, 302, 303, 307 and 308 with a `Location`, relative or
///   absolute, to http or https) are followed by the checker itself, at most
///   `maximumRedirects` of them, so that every hop is recorded. A redirect
///   to any other scheme ends the call with the kind `policy`, the hop
///   recorded and the target named.
/// - `timeout` bounds a whole call: every request, redirect hop and body read
///   of one `check` or `fetch` together.
/// - Cancelling the calling task ends the call promptly: `check` then reports
///   the kind `cancelled`, `fetch` no answer.
/// - Every request sends `User-Agent: <userAgent>`.
/// - Call `shutdown()` once when done, before the last reference goes away:
///   AsyncHTTPClient traps in debug builds when a client is never shut down.
package final class HTTPChecker: Sendable {
    /// The most redirects one call follows; one more ends it with `too-many-redirects`.
    package static let maximumRedirects = 10

    /// The statuses that count as "HEAD refused", after which `check` asks
    /// again with GET: 405 Method Not Allowed and 501 Not Implemented say so
    /// outright; 400 and 403 are what many servers and CDNs answer to a HEAD
    /// they do not route, while their GET works. A real 400 or 403 costs one
    /// more request and is then reported as GET's answer.
    package static let headRefusedStatuses: Set<Int> = [400, 403, 405, 501]

    /// The only schemes the checker asks: a URL of any other scheme (the
    /// Unix-socket schemes AsyncHTTPClient knows included) fails with the
    /// kind `policy` and no request is made, redirect targets included.
    package static let schemes: Set<String> = ["http", "https"]

    /// The statuses followed as redirects when they come with a `Location`.
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    package let userAgent: String
    /// The deadline of one whole `check` or `fetch`.
    package let timeout: Duration
    private let client: HTTPClient

    /// - Parameters:
    ///   - userAgent: sent as `User-Agent` with every request.
    ///   - timeout: the deadline of one whole `check` or `fetch`.
    ///   - ignoreTLSErrors: whether to accept any certificate (no chain or
    ///     host name verification).
    ///   - proxy: an HTTP proxy every request goes through (as a `CONNECT`
    ///     tunnel, plain HTTP included); nil connects directly.
    package init(userAgent: String, timeout: Duration, ignoreTLSErrors: Bool = false, proxy: URL? = nil) {
        self.userAgent = userAgent
        self.timeout = timeout
        var configuration = HTTPClient.Configuration(
            certificateVerification: ignoreTLSErrors ? .none : .fullVerification,
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: timeout.timeAmount, read: timeout.timeAmount))
        // A refused or unresolvable host fails at once instead of being tried
        // again with backoff until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let proxy, let host = proxy.host, let port = proxy.port {
            configuration.proxy = .server(host: host, port: port)
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the client's connections and releases it. Call once; checks and
    /// fetches after it fail (kind `other`).
    package func shutdown() async {
        try? await client.shutdown()
    }

    /// Checks `url`: HEAD, then GET to the same URL when HEAD is refused (one
    /// of `headRefusedStatuses`); follows redirects.
    ///
    /// Of a GET's body nothing is read: the response is dropped, which closes
    /// its connection, so a huge or endless body costs nothing.
    ///
    /// - Returns: the final answer (`status`, `mimeType`, `retryAfter`) and
    ///   the hops before it; or, when no final answer came within `timeout`,
    ///   `errorKind` and `errorMessage` with a nil `status`. Never throws.
    package func check(_ url: URL) async -> HTTPCheckResult {
        let deadline = RequestDeadline(after: timeout)
        var trace = Trace(url: url, method: .HEAD)
        do {
            let response = try await answer(url, method: .HEAD, fallBackToGET: true, acceptGzip: false,
                                             deadline: deadline, trace: &trace)
            var result = HTTPCheckResult(url: url, finalURL: trace.url, status: Int(response.status.code),
                                         method: trace.method.rawValue)
            result.redirects = trace.hops
            result.mimeType = Self.mimeType(response.headers)
            result.retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) }
            await release(response, method: trace.method, deadline: deadline)
            return result
        } catch {
            let failure = HTTPFailure(error, url: trace.url, timeout: timeout)
            var result = HTTPCheckResult(url: url, finalURL: trace.url, status: nil, method: trace.method.rawValue)
            result.redirects = trace.hops
            result.errorKind = failure.kind
            result.errorMessage = failure.message
            return result
        }
    }

    /// GETs `url`, following redirects, and returns the final answer's status
    /// and body: at most `maxBytes` of it (the rest is not downloaded), gzip
    /// decoded when the answer says `Content-Encoding: gzip` (the request
    /// offers `Accept-Encoding: gzip`; a body that claims gzip and does not
    /// decode is returned empty).
    ///
    /// - Returns: `(nil, Data())` when no complete answer came within
    ///   `timeout` (no answer, a connection broken mid-body, too many
    ///   redirects, a cancelled task).
    package func fetch(_ url: URL, maxBytes: Int = 10 << 20) async -> (status: Int?, body: Data) {
        let outcome = await get(url, maxBytes: maxBytes)
        return (outcome.status, outcome.body)
    }

    /// GETs the document at `url` as `fetch` does, and says how the answer
    /// came: every redirect hop, the final answer's headers that matter to a
    /// page (type, charset, `Retry-After`), when its head and the end of its
    /// body arrived, and whether the body was longer than `maxBytes`
    /// (`truncated`: only `maxBytes` of it were read). Never throws: a
    /// failure is in `errorKind` and `errorMessage`, with a nil `status`.
    package func document(_ url: URL, maxBytes: Int) async -> HTTPDocument {
        await get(url, maxBytes: maxBytes)
    }

    // MARK: - Internals

    /// `document`, with the reason of a failure kept as it was thrown.
    func get(_ url: URL, maxBytes: Int) async -> HTTPDocument {
        let deadline = RequestDeadline(after: timeout)
        let started = ContinuousClock.now
        var trace = Trace(url: url, method: .GET)
        var document = HTTPDocument(url: url, finalURL: url)
        do {
            let response = try await answer(url, method: .GET, fallBackToGET: false, acceptGzip: true,
                                             deadline: deadline, trace: &trace)
            document.responseStart = ContinuousClock.now - started
            (document.finalURL, document.redirects) = (trace.url, trace.hops)
            document.mimeType = Self.mimeType(response.headers)
            document.charset = Self.charset(response.headers)
            document.retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds(from: $0) }
            // One byte more than wanted says whether there was more.
            var body = try await read(response.body, upTo: maxBytes + 1, deadline: deadline)
            document.transferBytes = body.count
            let encoding = response.headers.first(name: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
            if encoding == "gzip" || encoding == "x-gzip" {
                body = (try? Gzip.decompress(body, maxBytes: maxBytes + 1).data) ?? Data()
            }
            document.truncated = body.count > maxBytes
            document.body = body.prefix(maxBytes)
            document.responseEnd = ContinuousClock.now - started
            document.status = Int(response.status.code)
        } catch {
            (document.finalURL, document.redirects) = (trace.url, trace.hops)
            let failure = HTTPFailure(error, url: trace.url, timeout: timeout)
            (document.status, document.body, document.failure) = (nil, Data(), failure)
        }
        return document
    }

    /// Where a call is: the URL being asked, the method, the redirects so far.
    private struct Trace {
        var url: URL
        var method: HTTPMethod
        var hops: [HTTPCheckResult.Hop] = []
    }

    /// The first answer to `method` on `url` that is neither a redirect nor
    /// (with `fallBackToGET`) a refused HEAD. `trace` follows along, also
    /// when it throws.
    private func answer(_ url: URL, method: HTTPMethod, fallBackToGET: Bool, acceptGzip: Bool,
                        deadline: RequestDeadline, trace: inout Trace) async throws -> HTTPClientResponse {
        trace.url = url
        trace.method = method
        while true {
            try Task.checkCancellation()
            let response = try await execute(trace.method, trace.url, acceptGzip: acceptGzip, deadline: deadline)
            let status = Int(response.status.code)
            if fallBackToGET && trace.method == .HEAD && Self.headRefusedStatuses.contains(status) {
                await release(response, method: trace.method, deadline: deadline)
                trace.method = .GET
                continue
            }
            guard Self.redirectStatuses.contains(status),
                  let next = Self.redirectLocation(response.headers, from: trace.url) else {
                return response
            }
            trace.hops.append(HTTPCheckResult.Hop(url: trace.url, status: status))
            await release(response, method: trace.method, deadline: deadline)
            // A redirect to another scheme (file:, data:, ...) is never followed: the call ends there.
            guard let scheme = next.scheme?.lowercased(), Self.schemes.contains(scheme) else {
                trace.url = next
                throw HTTPFailure.unsupportedScheme(next)
            }
            guard trace.hops.count <= Self.maximumRedirects else { throw HTTPFailure.tooManyRedirects(Self.maximumRedirects) }
            trace.url = next
        }
    }

    private func execute(_ method: HTTPMethod, _ url: URL, acceptGzip: Bool,
                         deadline: RequestDeadline) async throws -> HTTPClientResponse {
        // The one place every request passes: AsyncHTTPClient also speaks
        // `http+unix`, `https+unix` and `unix`, which reach local sockets
        // without any proxy, so nothing but http and https leaves here.
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme) else {
            throw HTTPFailure.unsupportedScheme(url)
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "User-Agent", value: userAgent)
        if acceptGzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        return try await client.execute(request, deadline: deadline.nio)
    }

    /// Lets go of a response whose body is not wanted. A HEAD answer's empty
    /// body is read to its end, so that the connection can serve the next
    /// request; any other body is dropped unread, which closes the connection
    /// unless the body had already arrived.
    private func release(_ response: HTTPClientResponse, method: HTTPMethod, deadline: RequestDeadline) async {
        guard method == .HEAD else { return }
        _ = try? await read(response.body, upTo: 0, deadline: deadline)
    }

    /// At most `maxBytes` of `body`; once it has that many, the rest is not read.
    ///
    /// - Throws: `HTTPFailure.timedOut` at the deadline, or what the body's
    ///   stream throws (a broken connection, a cancelled task).
    private func read(_ body: HTTPClientResponse.Body, upTo maxBytes: Int, deadline: RequestDeadline) async throws -> Data {
        let timeout = timeout
        return try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                var data = Data()
                for try await chunk in body {
                    data.append(contentsOf: chunk.readableBytesView.prefix(max(0, maxBytes - data.count)))
                    if data.count >= maxBytes { break }
                }
                return data
            }
            group.addTask {
                try await Task.sleep(until: deadline.instant, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let data = first else { throw HTTPFailure.timedOut(timeout) }
            return data
        }
    }

    /// The absolute URL, of any scheme, a redirect's `Location` points to, resolved against `url`.
    static func redirectLocation(_ headers: HTTPHeaders, from url: URL) -> URL? {
        guard let location = headers.first(name: "Location")?.trimmingCharacters(in: .whitespaces), !location.isEmpty,
              let target = URL(string: location, relativeTo: url)?.absoluteURL, target.scheme != nil else { return nil }
        return target
    }

    /// The `charset` parameter of `Content-Type`, lower-cased, without quotes; nil when absent.
    static func charset(_ headers: HTTPHeaders) -> String? {
        guard let contentType = headers.first(name: "Content-Type") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" '\t")).lowercased()
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// `Content-Type` without its parameters, lower-cased; nil when absent or empty.
    static func mimeType(_ headers: HTTPHeaders) -> String? {
        guard let contentType = headers.first(name: "Content-Type") else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces).lowercased()
        return type.isEmpty ? nil : type
    }
}

/// One instant on both clocks a call needs: Swift's for its own waits, NIO's
/// for AsyncHTTPClient's request deadline.
struct RequestDeadline: Sendable {
    let instant: ContinuousClock.Instant
    let nio: NIODeadline

    /// `duration` from now; at most a year, so that neither clock overflows.
    init(after duration: Duration) {
        let duration = min(max(duration, .zero), .seconds(365 * 24 * 3600))
        instant = .now + duration
        nio = .now() + duration.timeAmount
    }
}
