import Foundation

/// A request the private-address guard refused because its host resolved
/// to a non-public address. No connection was made for it.
public struct BlockedRequest: Sendable, Hashable {
    /// The host as the request named it: lowercased, without IPv6 brackets
    /// or a trailing dot.
    public var host: String
    public var port: Int
    /// The non-public address the host resolved to (the first one, when
    /// there were several), as text: `127.0.0.2`, `::1`.
    public var address: String
    public var kind: PrivateAddressKind
    /// The absolute URL of a plain-HTTP request; nil for a CONNECT tunnel
    /// (https, wss), which names only host and port.
    public var url: URL?
    /// When the guard refused it.
    public var date: Date

    public init(host: String, port: Int, address: String, kind: PrivateAddressKind, url: URL?, date: Date) {
        self.host = host
        self.port = port
        self.address = address
        self.kind = kind
        self.url = url
        self.date = date
    }
}
