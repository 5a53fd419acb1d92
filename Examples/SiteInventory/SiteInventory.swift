import Foundation
import NavWatch
import NavWatchCrawler

/// What the inventory keeps of one rendered page.
public struct PageInventory: Codable, Sendable, Equatable {
    /// The text of its `h1`, `h2` and `h3` elements, in document order.
    public var headings: [String]
    /// Its `<meta name="description">`, when it has one.
    public var description: String?
    /// Its `<link rel="canonical">`, as an absolute URL, when it has one.
    public var canonical: String?
    /// The words of its rendered text.
    public var words: Int
}

/// Crawls a site and collects each page's headings, meta description,
/// canonical link and word count, as the page is after its scripts ran.
public enum SiteInventory {
    /// Read in each page once it has loaded, in the page itself.
    static let script = """
        (() => ({
          headings: [...document.querySelectorAll('h1, h2, h3')].map(h => h.textContent.trim()),
          description: document.querySelector('meta[name="description"]')?.content ?? null,
          canonical: document.querySelector('link[rel="canonical"]')?.href ?? null,
          words: (document.body?.innerText.match(/\\S+/g) ?? []).length,
        }))()
        """

    /// Crawls the site of `seed` (its origin), keeping the crawl in the
    /// SQLite file `database` (run again, it resumes), and returns each
    /// loaded page's URL and inventory in the order they were stored.
    public static func crawl(_ seed: URL, database: String, maxPages: Int? = nil,
                             allowPrivateAddresses: Bool = false) async throws -> [(url: String, inventory: PageInventory)] {
        var configuration = CrawlConfiguration(seeds: [seed])
        configuration.maxPages = maxPages
        configuration.allowPrivateAddresses = allowPrivateAddresses
        configuration.pageHandler = { page in
            try await page.view.evaluateJavaScript(script, as: PageInventory.self)
        }
        let crawler = try Crawler(configuration: configuration, store: try SQLiteCrawlStore(path: database))
        var pages: [(url: String, inventory: PageInventory)] = []
        for try await report in crawler.reports() {
            if let inventory = try report.data(as: PageInventory.self) { pages.append((report.url, inventory)) }
        }
        return pages
    }

    /// `pages` as CSV (RFC 4180): `url,headings,description,canonical,words`,
    /// the headings joined with ` | `.
    public static func csv(_ pages: [(url: String, inventory: PageInventory)]) -> String {
        func field(_ text: String?) -> String {
            guard let text else { return "" }
            guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let rows = pages.map { page in
            [page.url, page.inventory.headings.joined(separator: " | "), page.inventory.description,
             page.inventory.canonical, String(page.inventory.words)].map(field).joined(separator: ",")
        }
        return (["url,headings,description,canonical,words"] + rows).map { $0 + "\r\n" }.joined()
    }
}
