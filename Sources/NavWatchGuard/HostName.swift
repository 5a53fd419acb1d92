import NIOCore

/// Host names as the guard compares them.
enum HostName {
    /// `host` lowercased, without IPv6 brackets or a trailing dot; an IP
    /// literal in its canonical text form (`::0001` becomes `::1`).
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        if let address = ipAddress(host), let text = address.ipAddress { return text }
        return host
    }

    /// `host` as a socket address when it is an IPv4 or IPv6 literal (dotted
    /// quad or RFC 4291 text, no brackets); nil for a name.
    static func ipAddress(_ host: String, port: Int = 0) -> SocketAddress? {
        try? SocketAddress(ipAddress: host, port: port)
    }
}
