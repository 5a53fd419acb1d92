import Synchronization

/// The hosts a guard lets through whatever they resolve to, counted: each
/// `allow` is undone by one `disallow` of the same hosts, so crawls that
/// share one guard can come and go. Host names are normalized with
/// `HostName.normalized`.
final class HostAllowance: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func allow(_ hosts: Set<String>) {
        counts.withLock { counts in
            for host in Set(hosts.map(HostName.normalized)) { counts[host, default: 0] += 1 }
        }
    }

    func disallow(_ hosts: Set<String>) {
        counts.withLock { counts in
            for host in Set(hosts.map(HostName.normalized)) {
                guard let count = counts[host] else { continue }
                counts[host] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// `host` must be normalized already.
    func contains(_ host: String) -> Bool {
        counts.withLock { $0[host] != nil }
    }

    var all: Set<String> {
        counts.withLock { Set($0.keys) }
    }
}
