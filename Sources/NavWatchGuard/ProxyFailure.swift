import Foundation
import NIOCore

/// A request for an allowed or public target that the guard could not carry
/// out: it answered `502 Bad Gateway` with `X-Navwatch-Proxy-Error: <kind>`.
public struct ProxyFailure: Sendable, Hashable {
    /// Why the guard could not reach the target. The raw values are the
    /// `X-Navwatch-Proxy-Error` header's values.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
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

        public var description: String { rawValue }
    }

    /// The host as the request named it: lowercased, without IPv6 brackets
    /// or a trailing dot.
    public var host: String
    public var port: Int
    /// The absolute URL of a plain-HTTP request; nil for a CONNECT tunnel.
    public var url: URL?
    public var kind: Kind
    /// When the guard gave up.
    public var date: Date

    public init(host: String, port: Int, url: URL?, kind: Kind, date: Date) {
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
