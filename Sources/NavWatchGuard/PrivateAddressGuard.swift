import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The private-address guard: an HTTP/1.1 forward proxy on 127.0.0.1 that
/// refuses to reach any non-package address (see `PrivateAddressKind`), so
/// that nothing a crawl loads, by whatever means, reaches the machine's own
/// services, its network or the cloud metadata service.
///
/// ## What it guarantees
/// - For each request it resolves the target host itself (all addresses)
///   when the request arrives. If the host is not one of `allowedHosts` and
///   any address is non-public, it makes no connection at all: it answers
///   `403 Forbidden` with `X-Navwatch-Blocked: private-address` and records
///   a `BlockedRequest`. Otherwise it connects to exactly an address it
///   checked and never resolves the name again, so a name that changes its
///   answer between check and connect (DNS rebinding) gains nothing.
/// - `CONNECT host:port` (https, wss) is answered
///   `200 Connection Established` and the bytes go both ways unchanged until
///   both sides have closed; a half-close is passed on.
/// - A plain-HTTP request (`GET http://host/path HTTP/1.1`) goes to the
///   origin in origin form, without `Proxy-Connection`,
///   `Proxy-Authorization` or other hop-by-hop fields; the response comes
///   back unchanged. An HTTP/1.1 request of known length (no upgrade, no
///   `Transfer-Encoding`, no `Connection: close`) keeps both connections
///   open when its response is framed by length and does not close them
///   (`ResponseFramer`): the next request on the client's connection is
///   read, resolved and checked like the first, and reuses the origin
///   connection only when it was checked to the very address that
///   connection reached. Any other request goes with `Connection: close`
///   (an upgrade keeps its own `Connection`), its bytes both ways
///   unchanged, and its client connection is closed once the origin is done.
/// - A target that cannot be reached is answered `502 Bad Gateway` with
///   `X-Navwatch-Proxy-Error: dns|connection-refused|timeout|connection-reset|other`
///   and recorded as a `ProxyFailure`.
/// - A malformed head is answered 400, a head over 64 KiB 431, and a client
///   that sends no whole head within `headTimeout` is disconnected. Every
///   error answer closes its connection.
///
/// - With a `LinkShape`, every connection behaves as if it crossed one
///   network link: each byte, both ways, arrives half a round trip late and
///   no faster than the direction's bandwidth allows, the connections
///   taking turns on it (`LinkShapingHandler`); a new connection to a
///   target costs one round trip before its first byte goes. Records and
///   answers are as without; a response or an error answer still held when
///   its timeout would start is sent whole first.
///
/// ## Threads and lifetime
/// The guard is `Sendable`: its records may be read from any thread while
/// it runs and after it stopped. It owns its own event loops and resolver
/// threads. Call `shutdown()` once done; it stops listening and closes every
/// connection (open tunnels included: their clients see the connection
/// end). The records stay readable afterwards.
package final class PrivateAddressGuard: Sendable {
    /// The port on 127.0.0.1 the guard listens on (chosen by the system).
    package let port: Int
    /// The hosts that may be reached even at non-package addresses, normalized:
    /// lowercased, without IPv6 brackets or trailing dot, IP literals in
    /// canonical form.
    package var allowedHosts: Set<String> { allowance.all }

    private let allowance: HostAllowance

    private let serverChannel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let resolverPool: NIOThreadPool
    private let log: GuardLog
    private let isShutDown = Mutex(false)

    /// Starts a guard listening on a free port of 127.0.0.1.
    ///
    /// - Parameters:
    ///   - allowedHosts: host names or IP literals (a crawl's seed hosts)
    ///     that may be reached even when they resolve to non-public
    ///     addresses. Compared case-insensitively, without IPv6 brackets and
    ///     trailing dot; a name allows only itself, not the addresses it
    ///     resolves to.
    ///   - connectTimeout: how long one connection attempt to a target may take.
    ///   - headTimeout: how long a new client connection may take to send its
    ///     whole request head.
    ///   - link: the network every connection behaves as if it crossed,
    ///     shared by all of them (see `LinkShape`); nil adds nothing.
    ///   - blocksPrivateAddresses: false lets every address through (a
    ///     guard that only shapes the network).
    package static func start(allowedHosts: Set<String>, connectTimeout: Duration = .seconds(10),
                             headTimeout: Duration = .seconds(30), link: LinkShape? = nil,
                             blocksPrivateAddresses: Bool = true) async throws -> PrivateAddressGuard {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let resolverPool = NIOThreadPool(numberOfThreads: 4)
        resolverPool.start()
        let log = GuardLog()
        let allowance = HostAllowance()
        allowance.allow(allowedHosts)
        let settings = GuardSettings(blocksPrivateAddresses: blocksPrivateAddresses, allowance: allowance,
                                     connectTimeout: TimeAmount(connectTimeout), headTimeout: TimeAmount(headTimeout),
                                     resolverPool: resolverPool, log: log, link: link.map(SharedLink.init))
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // What targets send waits as the link would.
                        let shaper = settings.link.map { LinkShapingHandler(link: $0, direction: .down) }
                        if let shaper { try channel.pipeline.syncOperations.addHandler(shaper) }
                        try channel.pipeline.syncOperations.addHandler(ProxyConnectionHandler(settings: settings, shaper: shaper))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            return PrivateAddressGuard(channel: channel, group: group, resolverPool: resolverPool, log: log,
                                       allowance: allowance)
        } catch {
            try? await resolverPool.shutdownGracefully()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private init(channel: any Channel, group: MultiThreadedEventLoopGroup, resolverPool: NIOThreadPool, log: GuardLog,
                 allowance: HostAllowance) {
        self.serverChannel = channel
        self.group = group
        self.resolverPool = resolverPool
        self.log = log
        self.allowance = allowance
        self.port = channel.localAddress?.port ?? 0
    }

    /// Lets `hosts` through too, from the next request on, until `disallow`
    /// of the same hosts: each call is undone by one `disallow`, so users of
    /// one guard can add and remove their hosts independently.
    package func allow(_ hosts: Set<String>) {
        allowance.allow(hosts)
    }

    /// Undoes one `allow(hosts)`.
    package func disallow(_ hosts: Set<String>) {
        allowance.disallow(hosts)
    }

    /// `http://127.0.0.1:PORT`, the proxy address to configure in clients.
    package var proxyURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Stops listening and closes every connection, tunnels included, then
    /// returns. Safe to call more than once (later calls return at once) and
    /// from any task.
    package func shutdown() async {
        let first = isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
        guard first else { return }
        try? await serverChannel.close()
        // Resolutions under way end (or are cancelled) while the event
        // loops still run to hear of it; closing the loops closes every
        // connection.
        try? await resolverPool.shutdownGracefully()
        try? await group.shutdownGracefully()
    }

    /// The requests refused so far, oldest first.
    package var blockedRequests: [BlockedRequest] { log.blockedRequests }

    /// The requests that could not reach their target so far, oldest first.
    package var failures: [ProxyFailure] { log.failures }

    /// A point in the guard's record: what `verdict(for:since:)` with it
    /// answers from comes after every request recorded so far.
    package var mark: GuardMark { log.mark }

    /// What happened at the guard to the latest request for `url` (since
    /// `mark`, when given), or nil when none was refused or failed (it went
    /// through, or never came).
    ///
    /// An http or ws URL matches a plain-HTTP request for the same URL
    /// (scheme and host case, a default port and a fragment do not matter)
    /// and, failing that, a tunnel to its host and port: some clients
    /// (AsyncHTTPClient among them) send CONNECT for plain HTTP too. An https
    /// or wss URL matches a tunnel to its host and port, since a tunnel names
    /// no path.
    package func verdict(for url: URL, since mark: GuardMark? = nil) -> GuardVerdict? {
        log.verdict(for: GuardRecordKey.candidates(for: url), since: mark)
    }
}
