import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a plain HTTP request got no usable answer. The raw values are the
/// names navwatch's reports use for the same failures of a page load.
package enum HTTPFailureKind: String, Sendable, Hashable, CaseIterable {
    /// The host name did not resolve.
    case dns
    case connectionRefused = "connection-refused"
    /// The connection closed before the answer was complete.
    case connectionReset = "connection-reset"
    case tls
    /// No complete answer within the checker's timeout.
    case timeout
    /// The calling task was cancelled.
    case cancelled
    case tooManyRedirects = "too-many-redirects"
    /// Never asked: the URL's scheme is neither http nor https.
    case policy
    case other
}

/// Why a request got no usable answer: a kind to switch over and one
/// human-readable line.
struct HTTPFailure: Error, Sendable, Equatable {
    var kind: HTTPFailureKind
    var message: String

    init(kind: HTTPFailureKind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// More redirects than the checker follows.
    static func tooManyRedirects(_ limit: Int) -> HTTPFailure {
        HTTPFailure(kind: .tooManyRedirects, message: "more than \(limit) redirects")
    }

    /// A URL whose scheme is neither http nor https: never asked.
    static func unsupportedScheme(_ url: URL) -> HTTPFailure {
        HTTPFailure(kind: .policy, message: "\(url.absoluteString): only http and https URLs are fetched, not \(url.scheme ?? "a URL without a scheme")")
    }

    /// The whole request (redirects and body included) took longer than `timeout`.
    static func timedOut(_ timeout: Duration) -> HTTPFailure {
        HTTPFailure(kind: .timeout, message: "no complete answer within \(timeout.secondsDescription)")
    }

    /// Classifies an error thrown by AsyncHTTPClient, SwiftNIO or NIOSSL while
    /// asking `url`.
    ///
    /// NIO's errors are found by type where this module can name the type
    /// (`HTTPClientError`, `IOError`, `ChannelError`, `SocketAddressError`),
    /// and by type name where it cannot without linking more modules
    /// (`NIOConnectionError` of NIOPosix, the `NIOSSLError`, `BoringSSLError`
    /// and `NIOSSLExtraError` of NIOSSL). Errors nested in others (a
    /// connection error's DNS and per-address failures) are looked at too.
    init(_ error: any Error, url: URL, timeout: Duration) {
        if let failure = error as? HTTPFailure {
            self = failure
            return
        }
        let host = url.host ?? url.absoluteString
        let address = url.port.map { "\(host):\($0)" } ?? host
        let detail = Self.oneLine(String(describing: error))
        let nested = Self.nestedErrors(of: error)

        func has(_ test: (any Error) -> Bool) -> Bool { nested.contains(where: test) }
        func errno(_ error: any Error) -> Int32? { (error as? IOError)?.errnoCode }
        func typeName(_ error: any Error) -> String { String(reflecting: type(of: error)) }

        if has({ $0 is SocketAddressError.UnknownHost }) {
            self.init(kind: .dns, message: "the host name \(host) did not resolve")
        } else if has({ errno($0) == ECONNREFUSED }) {
            self.init(kind: .connectionRefused, message: "\(address) refused the connection")
        } else if let tlsError = nested.first(where: { typeName($0).hasPrefix("NIOSSL.") }) {
            self.init(kind: .tls, message: "TLS with \(address) failed: \(Self.tlsReason(tlsError))")
        } else if has({ Self.timeoutErrors.contains($0 as? HTTPClientError) || errno($0) == ETIMEDOUT }) {
            self = .timedOut(timeout)
        } else if has({ [ECONNRESET, EPIPE, ECONNABORTED].contains(errno($0))
                        || ($0 as? HTTPClientError) == .remoteConnectionClosed
                        || [.eof, .ioOnClosedChannel, .outputClosed, .inputClosed].contains($0 as? ChannelError) }) {
            self.init(kind: .connectionReset, message: "the connection to \(address) closed before the answer was complete")
        } else if has({ ($0 as? HTTPClientError) == .redirectLimitReached || ($0 as? HTTPClientError) == .redirectCycleDetected }) {
            self.init(kind: .tooManyRedirects, message: "too many redirects")
        } else if has({ ($0 as? HTTPClientError) == .cancelled || $0 is CancellationError }) {
            self.init(kind: .cancelled, message: "the request was cancelled")
        } else if has({ typeName($0).hasSuffix(".NIOConnectionError") }) && !has({ $0 is IOError }) {
            // A connection error without a failed connection attempt: no address to try.
            self.init(kind: .dns, message: "the host name \(host) did not resolve: \(detail)")
        } else {
            self.init(kind: .other, message: "\(address): \(detail)")
        }
    }

    private static let timeoutErrors: [HTTPClientError?] = [
        .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
        .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
    ]

    /// `error` and the errors it holds, breadth first, a few levels deep.
    private static func nestedErrors(of error: any Error) -> [any Error] {
        var found: [any Error] = [error]
        var level: [Any] = [error]
        for _ in 0..<4 {
            var next: [Any] = []
            for value in level {
                for child in Mirror(reflecting: value).children {
                    if let childError = child.value as? any Error { found.append(childError) }
                    next.append(child.value)
                }
            }
            level = next
            if level.isEmpty { break }
        }
        return found
    }

    /// A TLS error in a few words: BoringSSL's reason codes when it has any
    /// (`CERTIFICATE_VERIFY_FAILED` becomes "certificate verify failed"),
    /// else the error's description on one line.
    private static func tlsReason(_ error: any Error) -> String {
        let description = oneLine(String(describing: error))
        // "… error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /path/handshake.cc:320 …"
        let reasons = description.matches(of: /:([A-Z0-9_]+)\s+at\s/).map { $0.1.lowercased().replacingOccurrences(of: "_", with: " ") }
        return reasons.isEmpty ? description : reasons.joined(separator: ", ")
    }

    /// `text` on one line, without runs of white space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
