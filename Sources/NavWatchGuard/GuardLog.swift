import Foundation
import Synchronization

/// What a request is looked up by: a plain-HTTP request by its whole URL, a
/// tunnel by host and port.
enum GuardRecordKey: Hashable, Sendable {
    /// Normalized host, port, and the origin-form path with its query.
    case http(host: String, port: Int, path: String)
    case tunnel(host: String, port: Int)

    /// The keys a lookup for `url` matches, most specific first; empty for
    /// a URL the guard never sees (a file URL, say).
    static func candidates(for url: URL) -> [GuardRecordKey] {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(),
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty else { return [] }
        let host = HostName.normalized(rawHost)
        var path = components.percentEncodedPath
        if path.isEmpty { path = "/" }
        if let query = components.percentEncodedQuery { path += "?" + query }
        // Clients may tunnel plain HTTP too (AsyncHTTPClient sends CONNECT
        // for every URL), so an http URL also matches a tunnel to its host.
        switch scheme {
        case "http", "ws":
            let port = components.port ?? 80
            return [.http(host: host, port: port, path: path), .tunnel(host: host, port: port)]
        case "https", "wss":
            return [.tunnel(host: host, port: components.port ?? 443)]
        default:
            return []
        }
    }
}

/// The guard's records, in order, shared by every connection. Thread-safe.
final class GuardLog: Sendable {
    private struct Entry: Sendable {
        var key: GuardRecordKey
        var verdict: GuardVerdict
    }

    private let entries = Mutex<[Entry]>([])

    func record(_ verdict: GuardVerdict, key: GuardRecordKey) {
        entries.withLock { $0.append(Entry(key: key, verdict: verdict)) }
    }

    var blockedRequests: [BlockedRequest] {
        entries.withLock { entries in
            entries.compactMap { if case .blocked(let request) = $0.verdict { request } else { nil } }
        }
    }

    var failures: [ProxyFailure] {
        entries.withLock { entries in
            entries.compactMap { if case .failed(let failure) = $0.verdict { failure } else { nil } }
        }
    }

    /// The latest verdict recorded under the first of `keys` that has one.
    func verdict(for keys: [GuardRecordKey]) -> GuardVerdict? {
        entries.withLock { entries in
            for key in keys {
                if let entry = entries.last(where: { $0.key == key }) { return entry.verdict }
            }
            return nil
        }
    }
}
