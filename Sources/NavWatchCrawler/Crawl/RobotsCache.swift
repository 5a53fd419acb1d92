import Foundation
import NavWatchHTTP

/// The robots.txt of each origin a crawl visits, fetched once per origin
/// (the tasks that ask while it is being fetched share the one fetch) with
/// the crawl's HTTP client; a missing or unreadable robots.txt allows
/// everything. Lives as long as one run of the crawl.
actor RobotsCache {
    private let agent: String
    private let http: HTTPChecker
    private var fetches: [String: Task<RobotsTxt, Never>] = [:]

    /// - Parameter agent: the product token matched against robots.txt groups.
    init(agent: String, http: HTTPChecker) {
        self.agent = agent
        self.http = http
    }

    /// Whether the robots.txt of `url`'s origin lets `agent` load it.
    func allows(_ url: URL) async -> Bool {
        guard let origin = URLCanonicalizer.origin(of: url) else { return true }
        let fetch = fetches[origin] ?? Task { [agent, http] in await Self.fetch(origin: origin, agent: agent, http: http) }
        fetches[origin] = fetch
        return await fetch.value.allows(url)
    }

    private static func fetch(origin: String, agent: String, http: HTTPChecker) async -> RobotsTxt {
        guard let url = URL(string: origin + "/robots.txt") else { return .allowAll }
        let answer = await http.fetch(url, maxBytes: 1 << 20)
        guard answer.status == 200 else { return .allowAll }
        return RobotsTxt(String(decoding: answer.body, as: UTF8.self), userAgent: agent)
    }
}
