import Foundation

/// A request the private-address guard refused because its host resolved
/// to a non-package address. No connection was made for it.
package struct BlockedRequest: Sendable, Hashable {
    /// The host as the request named it: lowercased, without IPv6 brackets
    /// or a trailing dot.
    package var host: String
    package var port: Int
    /// The non-package address the host resolved to (the first one, when
    /// there were several), as text: `127.0.0.2`, `::1`.
    package var address: String
    package var kind: PrivateAddressKind
    /// The absolute URL of a plain-HTTP request; nil for a CONNECT tunnel
    /// (https, wss), which names only host and port.
    package var url: URL?
    /// When the guard refused it.
    package var date: Date

    package init(host: String, port: Int, address: String, kind: PrivateAddressKind, url: URL?, date: Date) {
        self.host = host
        self.port = port
        self.address = address
        self.kind = kind
        self.url = url
        self.date = date
    }
}
