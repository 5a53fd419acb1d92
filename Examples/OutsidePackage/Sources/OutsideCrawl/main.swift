// Crawls SEED's site into the SQLite file DB, printing each page's URL and
// its title as a page handler read it from the rendered page:
//
//     OutsideCrawl SEED DB
import Foundation
import NavWatch
import NavWatchCrawler

let arguments = CommandLine.arguments
guard arguments.count == 3, let seed = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: OutsideCrawl SEED DB\n".utf8))
    exit(2)
}
var configuration = CrawlConfiguration(seeds: [seed])
configuration.allowPrivateAddresses = true  // the site is on loopback
configuration.pageHandler = { page in
    try await page.view.evaluateJavaScript("document.title", as: String.self)
}
let crawler = try Crawler(configuration: configuration, store: try SQLiteCrawlStore(path: arguments[2]))
for try await report in crawler.reports() {
    print(report.url, report.outcome.rawValue, try report.data(as: String.self) ?? "-")
}
