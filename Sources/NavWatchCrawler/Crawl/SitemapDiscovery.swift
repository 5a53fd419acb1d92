import Foundation
import NavWatchHTTP

/// Where a crawl finds pages besides links: the pages of a sitemap (or
/// sitemap index), or of the sitemaps the seeds' robots.txt name.
enum SitemapDiscovery {
    /// The pages of `source` that `links` puts in scope, as entries at depth
    /// 0 (no link leads to them). With `.auto`, each seed origin's
    /// robots.txt `Sitemap:` lines, else its `/sitemap.xml`; a sitemap `auto`
    /// only guessed may be missing, one named outright must be readable.
    ///
    /// - Throws: `CrawlError` when a sitemap named outright cannot be read.
    static func entries(_ source: SitemapSource, seeds: [URL], links: LinkClassifier,
                        http: HTTPChecker) async throws -> [FrontierEntry] {
        var sitemaps: [URL] = []
        switch source {
        case .url(let url):
            sitemaps = [url]
        case .auto:
            for origin in Set(seeds.compactMap(URLCanonicalizer.origin)).sorted() {
                guard let base = URL(string: origin) else { continue }
                let robots = await http.fetch(base.appendingPathComponent("robots.txt"), maxBytes: 1 << 20)
                let listed = robots.status == 200
                    ? Sitemap.sitemapURLs(inRobotsTxt: String(decoding: robots.body, as: UTF8.self), base: base) : []
                sitemaps += listed.isEmpty ? [base.appendingPathComponent("sitemap.xml")] : listed
            }
        }
        var entries: [FrontierEntry] = []
        for sitemap in sitemaps {
            let pages: [URL]
            do {
                pages = try await Sitemap.pages(at: sitemap, using: http)
            } catch {
                if source == .auto { continue }
                throw CrawlError(description: "\(error)")
            }
            for page in pages {
                guard let canonical = URLCanonicalizer.canonical(page), ["http", "https"].contains(canonical.scheme ?? ""),
                      links.isInScope(canonical) else { continue }
                entries.append(FrontierEntry(url: canonical.absoluteString, depth: 0, parent: nil, kind: .sitemapPage))
            }
        }
        return entries
    }
}
