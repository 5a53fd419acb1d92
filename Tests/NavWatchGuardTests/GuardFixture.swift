import AsyncHTTPClient
import Foundation
import LoopbackServer
import NIOHTTP1
import NavWatchGuard
import NavWatchTestSupport

/// Runs `body` with a guard that allows `allowedHosts`, and shuts the guard
/// down afterwards, also when `body` throws. The whole thing has a deadline.
func withGuard<T: Sendable>(allowing allowedHosts: Set<String>, headTimeout: Duration = .seconds(30), link: LinkShape? = nil,
                            _ body: @escaping @Sendable (PrivateAddressGuard) async throws -> T) async throws -> T {
    try await withDeadline("a test with the guard") {
        let proxy = try await PrivateAddressGuard.start(allowedHosts: allowedHosts, headTimeout: headTimeout, link: link)
        do {
            let result = try await body(proxy)
            await proxy.shutdown()
            return result
        } catch {
            await proxy.shutdown()
            throw error
        }
    }
}

/// Runs `body` with an AsyncHTTPClient whose every request goes through
/// `proxy`: no redirects followed, any certificate accepted.
func withProxiedClient<T: Sendable>(_ proxy: PrivateAddressGuard,
                                    _ body: @Sendable (HTTPClient) async throws -> T) async throws -> T {
    var configuration = HTTPClient.Configuration(certificateVerification: .none, redirectConfiguration: .disallow,
                                                 timeout: .init(connect: .seconds(5), read: .seconds(5)),
                                                 proxy: .server(host: "127.0.0.1", port: proxy.port))
    configuration.connectionPool.retryConnectionEstablishment = false
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// Runs `body` with a loopback server on `host`, shut down afterwards.
func withServer<T: Sendable>(host: String = "127.0.0.1", tls: LoopbackServer.TLSIdentity? = nil,
                             route: @escaping LoopbackServer.Route,
                             _ body: @Sendable (LoopbackServer) async throws -> T) async throws -> T {
    let server = try await LoopbackServer.start(host: host, tls: tls, route: route)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

extension HTTPClient {
    /// GETs `url` (or sends `method` with `body`) and reads the whole answer.
    func fetch(_ url: URL, method: HTTPMethod = .GET, body: [UInt8]? = nil) async throws
        -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        if let body { request.body = .bytes(body) }
        let response = try await execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 10 << 20)
        return (Int(response.status.code), response.headers, String(buffer: bytes))
    }
}
