#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Name resolution with the system resolver (`getaddrinfo`). Blocking: call
/// it from a thread pool, never on an event loop.
enum HostResolver {
    /// A name that did not resolve.
    struct Failure: Error, CustomStringConvertible {
        var host: String
        var message: String
        var description: String { "\(host) did not resolve: \(message)" }
    }

    /// Every IPv4 and IPv6 address `host` resolves to for TCP, in the
    /// resolver's order, without duplicates, each with `port`.
    static func addresses(of host: String, port: Int) throws(Failure) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw Failure(host: host, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            guard let raw = entry.pointee.ai_addr else { continue }
            let address: SocketAddress
            switch entry.pointee.ai_family {
            case AF_INET:
                address = SocketAddress(raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }, host: host)
            case AF_INET6:
                address = SocketAddress(raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }, host: host)
            default:
                continue
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        guard !addresses.isEmpty else { throw Failure(host: host, message: "no IPv4 or IPv6 address") }
        return addresses
    }
}
