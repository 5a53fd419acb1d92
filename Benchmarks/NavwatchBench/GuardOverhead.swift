import ArgumentParser
import Foundation
import LoopbackServer
import NavWatchCrawler
import NavWatchGuard
import NavWatchSupport

/// What the private-address guard costs per proxied request, in CPU time of
/// this process (the guard, the loopback origin and a plain blocking client,
/// the last two the same whatever the guard does), without a network
/// profile and with one: `--network` as `navwatch crawl` takes it. With
/// `latency=0ms` and no bandwidth limit, what is measured is the shaping's
/// own work (a handler and a timer per write); a real profile adds the
/// pieces its bandwidth cuts a response into.
///
/// Each request is a plain-HTTP GET of a `--bytes` body on one kept-alive
/// connection; prints `{"network", "requests", "cpu_us_per_request",
/// "idle_cpu_us_per_second", "wall_ms_per_request"}`, the CPU per request
/// less what the process spends idle over the same time (measured for two
/// seconds before).
struct GuardOverhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "guard")

    @Option(help: "Requests to time (after 50 not timed).")
    var requests = 2000

    @Option(help: "The size of each response body, in bytes.")
    var bytes = 10_000

    @Option(help: "A network profile (as --network takes it); none by default.")
    var network: String?

    func run() async throws {
        let profile = try network.map { try NetworkProfile(parsing: $0) }
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: bytes)
        let origin = try await LoopbackServer.start { _ in .respond(status: 200, headers: [("Content-Type", "text/plain")], body: body) }
        let proxy = try await PrivateAddressGuard.start(allowedHosts: ["127.0.0.1"], link: profile?.linkShape)
        let client = try BlockingClient(port: proxy.port)
        let request = "GET http://127.0.0.1:\(origin.port)/ HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n"
        for _ in 0..<50 { try client.exchange(request) }
        // What the process spends doing nothing (its threads' wake-ups), to
        // leave out of requests that spend most of their time waiting.
        let idleBefore = Self.cpuMicroseconds()
        try await Task.sleep(for: .seconds(2))
        let idlePerSecond = (Self.cpuMicroseconds() - idleBefore) / 2
        let cpuBefore = Self.cpuMicroseconds(), wallBefore = ContinuousClock.now
        for _ in 0..<requests { try client.exchange(request) }
        let cpu = Self.cpuMicroseconds() - cpuBefore, wall = (ContinuousClock.now - wallBefore).seconds
        client.close()
        await proxy.shutdown()
        await origin.shutdown()
        let name = profile.map { "\"\($0.name)\"" } ?? "null"
        let perRequest = (cpu - idlePerSecond * wall) / Double(requests)
        print(#"{"network": \#(name), "requests": \#(requests), "cpu_us_per_request": \#(String(format: "%.1f", perRequest)), "#
              + #""idle_cpu_us_per_second": \#(String(format: "%.0f", idlePerSecond)), "wall_ms_per_request": \#(String(format: "%.3f", wall * 1000 / Double(requests)))}"#)
    }

    /// User and system CPU time of the whole process so far.
    private static func cpuMicroseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }
}

/// An HTTP/1.1 client on one blocking socket: sends a request, reads its
/// response to the end of its `Content-Length` body.
private final class BlockingClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ValidationError("cannot connect to the guard") }
    }

    func exchange(_ request: String) throws {
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw ValidationError("cannot send")
        }
        var headEnd: Int?
        var length = 0
        while true {
            if headEnd == nil, let end = Self.find([13, 10, 13, 10], in: buffer) {
                headEnd = end + 4
                let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
                guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                      let value = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("no Content-Length: \(head)")
                }
                length = value
            }
            if let headEnd, buffer.count >= headEnd + length {
                buffer.removeFirst(headEnd + length)
                return
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ValidationError("the guard closed the connection") }
            buffer += chunk[..<count]
        }
    }

    func close() { Glibc.close(socket) }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
