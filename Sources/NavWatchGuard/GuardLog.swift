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

/// A point in a guard's record: `PrivateAddressGuard.verdict(for:since:)`
/// answers only from what was recorded after it.
package struct GuardMark: Sendable, Hashable, Comparable {
    let sequence: Int

    package static func < (lhs: GuardMark, rhs: GuardMark) -> Bool { lhs.sequence < rhs.sequence }
}

/// The guard's records, in order, shared by every connection, with the
/// latest verdict per key at hand. Thread-safe.
final class GuardLog: Sendable {
    private struct Entry: Sendable {
        var key: GuardRecordKey
        var verdict: GuardVerdict
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        /// The latest verdict under each key and its place in `entries`.
        var latest: [GuardRecordKey: (sequence: Int, verdict: GuardVerdict)] = [:]
    }

    private let state = Mutex(State())

    func record(_ verdict: GuardVerdict, key: GuardRecordKey) {
        state.withLock { state in
            state.latest[key] = (state.entries.count, verdict)
            state.entries.append(Entry(key: key, verdict: verdict))
        }
    }

    /// Everything recorded from now on comes after this mark.
    var mark: GuardMark {
        state.withLock { GuardMark(sequence: $0.entries.count) }
    }

    var blockedRequests: [BlockedRequest] {
        state.withLock { state in
            state.entries.compactMap { if case .blocked(let request) = $0.verdict { request } else { nil } }
        }
    }

    var failures: [ProxyFailure] {
        state.withLock { state in
            state.entries.compactMap { if case .failed(let failure) = $0.verdict { failure } else { nil } }
        }
    }

    /// The latest verdict recorded under the first of `keys` that has one
    /// recorded at or after `mark`.
    func verdict(for keys: [GuardRecordKey], since mark: GuardMark?) -> GuardVerdict? {
        state.withLock { state in
            for key in keys {
                if let latest = state.latest[key], latest.sequence >= mark?.sequence ?? 0 { return latest.verdict }
            }
            return nil
        }
    }
}
