import Foundation
import NavWatchGuard

/// Which discovered links a crawl follows, relative to the seed they came from.
public enum CrawlScope: String, Codable, Sendable, CaseIterable {
    /// Same scheme, host and port as the seed.
    case sameOrigin = "same-origin"
    /// Same host, any scheme or port.
    case sameHost = "same-host"
    /// Same registrable domain, approximated by the last two host labels
    /// (`a.example.org` and `b.example.org`); IP addresses must match exactly
    /// (`HostName.site`).
    case sameDomain = "same-domain"
    /// Anything http or https.
    case any

    /// Whether `url` is in scope for a crawl seeded with `seeds`.
    package func contains(_ url: URL, seeds: [URL]) -> Bool {
        seeds.contains { seed in
            switch self {
            case .any: return true
            case .sameOrigin:
                return url.scheme == seed.scheme && url.host == seed.host && Self.port(url) == Self.port(seed)
            case .sameHost:
                return url.host == seed.host
            case .sameDomain:
                return Self.domain(url.host) == Self.domain(seed.host)
            }
        }
    }

    private static func port(_ url: URL) -> Int? {
        url.port ?? url.scheme.flatMap(URLCanonicalizer.defaultPort)
    }

    private static func domain(_ host: String?) -> String? {
        host.map(HostName.site)
    }
}
