import Foundation
import NIOCore

/// A request for an allowed or package target that the guard could not carry
/// out: it answered `502 Bad Gateway` with `X-Navwatch-Proxy-Error: <kind>`.
package struct ProxyFailure: Sendable, Hashable {
    /// Why the guard could not reach the target. The raw values are the
    /// `X-Navwatch-Proxy-Error` header's values.
    package enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The host name did not resolve.
        case dns
        /// Every address refused the connection.
        case connectionRefused = "connection-refused"
        /// Connecting took longer than the guard's connect timeout.
        case timeout
        /// The connection was reset while it was being made.
        case connectionReset = "connection-reset"
        /// Anything else: an unreachable network, a request aimed at the
        /// guard itself, ...
        case other

        package var description: String { rawValue }
    }

    /// The host as the request named it: lowercased, without IPv6 brackets
    /// or a trailing dot.
    package var host: String
    package var port: Int
    /// The absolute URL of a plain-HTTP request; nil for a CONNECT tunnel.
    package var url: URL?
    package var kind: Kind
    /// When the guard gave up.
    package var date: Date

    package init(host: String, port: Int, url: URL?, kind: Kind, date: Date) {
        self.host = host
        self.port = port
        self.url = url
        self.kind = kind
        self.date = date
    }
}

extension ProxyFailure.Kind {
    /// The kind of a failed connect: the error of NIO's `ClientBootstrap.connect(to:)`.
    init(connectError error: any Error) {
        if let error = error as? ChannelError, case .connectTimeout = error {
            self = .timeout
            return
        }
        guard let error = error as? IOError else {
            self = .other
            return
        }
        switch error.errnoCode {
        case ECONNREFUSED: self = .connectionRefused
        case ECONNRESET, EPIPE: self = .connectionReset
        case ETIMEDOUT: self = .timeout
        default: self = .other
        }
    }
}
