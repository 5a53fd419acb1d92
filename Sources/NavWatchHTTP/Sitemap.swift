import Foundation

/// Placeholder: the real sitemap reader replaces this file.
public enum Sitemap {
    public static func pages(at url: URL, using checker: HTTPChecker, limit: Int = 50_000) async throws -> [URL] { [] }
    public static func sitemapURLs(inRobotsTxt text: String, base: URL) -> [URL] { [] }
}
