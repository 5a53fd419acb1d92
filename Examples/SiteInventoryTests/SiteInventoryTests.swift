import Foundation
import LoopbackServer
import NavWatchTestSupport
import SiteInventory
import Testing

/// The README's "Crawling from Swift" example, against a loopback site whose
/// second page writes its own heading with a script.
@Suite("SiteInventory example")
struct SiteInventoryTests {
    private static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/":
            return .html("""
                <!doctype html><title>Home</title><meta name="description" content="The home page, with &quot;quotes&quot;, and a comma">
                <link rel="canonical" href="/"><h1>Welcome</h1><p>Three words here.</p><a href="/about">About us</a>
                """)
        case "/about":
            return .html("""
                <!doctype html><title>About</title><h2>Who</h2><div id="later"></div>
                <script>document.getElementById('later').innerHTML = '<h3>Written by a script</h3><p>one two</p>'</script>
                """)
        default:
            return .html("<title>Missing</title>", status: 404)
        }
    }

    @Test("each page's headings, description, canonical link and word count, as CSV")
    func inventory() async throws {
        let server = try await LoopbackServer.start(route: Self.route)
        defer { Task { await server.shutdown() } }
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("inventory-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        let pages = try await withDeadline("the crawl to end", within: .seconds(60)) {
            try await SiteInventory.crawl(server.url("/"), database: database, allowPrivateAddresses: true)
        }
        let base = server.baseURL.absoluteString
        #expect(SiteInventory.csv(pages.sorted { $0.url < $1.url }) == """
            url,headings,description,canonical,words\r
            \(base)/,Welcome,"The home page, with ""quotes"", and a comma",\(base)/,6\r
            \(base)/about,Who | Written by a script,,,7\r

            """)
    }
}
