// NavWatchReports.docc's example: crawl a site and write every request of
// every page as HAR 1.2, and the reports as CSV, from Swift.
// `swift run CrawlHARExample https://example.org/ site.har site.csv`
import Foundation
import NavWatchCrawler
import NavWatchReports

let arguments = CommandLine.arguments.dropFirst()
let seed = URL(string: arguments.first ?? "https://example.org/")!
let harPath = arguments.dropFirst().first ?? "site.har"
let csvPath = arguments.dropFirst(2).first ?? "site.csv"

var configuration = CrawlConfiguration(seeds: [seed])
configuration.maxPages = 20
let store = try SQLiteCrawlStore(path: "site-crawl.db")  // run again, it resumes
for try await report in try Crawler(configuration: configuration, store: store).reports() {
    print(report.outcome.rawValue, report.url)
}

// The HAR: written as the reports come, a page and its entries at a time.
let har = try HARWriter(path: harPath)
for try await report in store.storedReports(includingRequests: true) {
    har.add(report)
}
try har.finish()

// The CSV: the columns of `navwatch export --format csv`.
var csv = ReportExport.csvRow(ReportExport.csvColumns) + "\r\n"
for try await report in store.storedReports() {
    csv += ReportExport.csvRow(ReportExport.csvFields(report)) + "\r\n"
}
try csv.write(toFile: csvPath, atomically: true, encoding: .utf8)
