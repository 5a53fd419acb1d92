import Foundation
import Glibc
import Synchronization

/// A Unix-domain socket that a test expects nobody to reach (a stand-in for
/// docker.sock): it accepts and counts connections, reads nothing and
/// answers nothing. Its path is in a fresh temporary directory.
package final class UnixSocketListener: Sendable {
    package let path: String
    private let descriptor: Int32
    private let accepted = Mutex(0)
    private let done = DispatchSemaphore(value: 0)

    /// Listens at `<temporary directory>/svc.sock`, accepting on a thread of its own.
    package init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navwatch-unix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("svc.sock").path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(descriptor, nil, nil)
                guard client >= 0 else { break }  // shut down
                accepted.withLock { $0 += 1 }
                close(client)
            }
            done.signal()
        }
    }

    /// The connections accepted so far.
    package var connections: Int { accepted.withLock { $0 } }

    /// `path` percent-encoded as the host of an `http+unix://` URL.
    package var encodedPath: String { path.replacingOccurrences(of: "/", with: "%2F") }

    /// Stops accepting and removes the socket file and its directory.
    package func shutdown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        done.wait()
        close(descriptor)
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
}
