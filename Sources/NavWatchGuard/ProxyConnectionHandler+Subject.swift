import Foundation

extension ProxyConnectionHandler {
    /// What a request is called in records and answers.
    struct Subject {
        var host: String
        var port: Int
        private var head: ProxyRequestHead
        /// `host:port`, IPv6 in brackets.
        var authority: String { HostName.authority(host, port: port) }

        init(_ head: ProxyRequestHead) {
            host = HostName.normalized(head.target.host)
            port = head.target.port
            self.head = head
        }

        /// The URL asked for; nil for a tunnel. (Made only for a record: most requests need none.)
        var url: URL? {
            guard case .http(_, _, _, let path) = head.target else { return nil }
            let scheme = head.rawTarget.lowercased().hasPrefix("ws://") ? "ws" : "http"
            let authority = host.contains(":") ? "[\(host)]" : host
            return URL(string: "\(scheme)://\(authority)\(port == 80 ? "" : ":\(port)")\(path)")
        }

        var key: GuardRecordKey {
            switch head.target {
            case .tunnel: .tunnel(host: host, port: port)
            case .http(_, _, _, let path): .http(host: host, port: port, path: path)
            }
        }
    }
}
