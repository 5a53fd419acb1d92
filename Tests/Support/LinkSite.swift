import Foundation
import LoopbackServer
import NavWatchHTTP
import Synchronization

/// Two loopback servers for link checking: a site, and another site (another
/// port, so another origin) that the first links to.
///
///     /             → /a /b /c, /moved, /a#present, /a#nowhere, #top, three external links,
///                     and /js-missing, added by a script at `load`
///     /a            → /missing "Missing page"; has id="present"
///     /b            → /missing "gone"
///     /c            → /missing through an image whose alt is "Broken picture"
///     /moved        → 302 to /missing;  /missing, /js-missing → 404
///     /orphan       → a page only the sitemap lists
///     /robots.txt   → Sitemap: /sitemap-index.xml.gz (a gzip sitemap index of /sitemap-pages.xml: /, /a, /orphan)
///     external /gone → 404;  /head-refused → 405 to HEAD, 200 to GET;  /busy → 429 with Retry-After: 1 once, then 200
package final class LinkSite: Sendable {
    package let site: LoopbackServer
    package let external: LoopbackServer
    private let busyHits = Mutex(0)

    package static func start() async throws -> LinkSite {
        let holder = Holder()
        let external = try await LoopbackServer.start(route: { request in holder.site.withLock { $0 }?.externalRoute(request) ?? .hang })
        let site = try await LoopbackServer.start(route: { request in holder.site.withLock { $0 }?.siteRoute(request) ?? .hang })
        let linkSite = LinkSite(site: site, external: external)
        holder.site.withLock { $0 = linkSite }
        return linkSite
    }

    private init(site: LoopbackServer, external: LoopbackServer) {
        self.site = site
        self.external = external
    }

    package func shutdown() async {
        await site.shutdown()
        await external.shutdown()
    }

    /// The site's base URL, without a trailing slash.
    package var base: String { site.baseURL.absoluteString.trimmingCharacters(in: ["/"]) }
    /// The other site's base URL, without a trailing slash.
    package var externalBase: String { external.baseURL.absoluteString.trimmingCharacters(in: ["/"]) }

    /// `text` with both bases replaced by `A` and `B`.
    package func relative(_ text: String) -> String {
        text.replacingOccurrences(of: base, with: "A").replacingOccurrences(of: externalBase, with: "B")
    }

    private func siteRoute(_ request: LoopbackRequest) -> LoopbackResponse {
        func page(_ title: String, _ body: String) -> LoopbackResponse {
            .html("<!doctype html><title>\(title)</title><body>\(body)</body>")
        }
        switch request.path {
        case "/":
            return page("Home", """
                <a href="/a">Page A</a> <a href="/b">Page B</a> <a href="/c">Page C</a> <a href="/moved">Moved away</a>
                <a href="/a#present">Present section</a> <a href="/a#nowhere">Missing section</a> <a href="#top">Top</a>
                <a href="\(externalBase)/gone">Gone elsewhere</a> <a href="\(externalBase)/head-refused">Needs GET</a>
                <a href="\(externalBase)/busy">Busy elsewhere</a>
                <script>addEventListener('load', () => {
                  const a = document.createElement('a');
                  a.href = '/js-missing';
                  a.textContent = 'Added by script';
                  document.body.append(a);
                });</script>
                """)
        case "/a": return page("A", #"<h2 id="present">Present</h2><a href="/missing">Missing page</a>"#)
        case "/b": return page("B", #"<a href="/missing">gone</a>"#)
        case "/c": return page("C", #"<a href="/missing"><img alt="Broken picture"></a>"#)
        case "/moved": return .redirect(to: "/missing")
        case "/orphan": return page("Orphan", #"<a href="/">Home</a>"#)
        case "/robots.txt": return .text("User-agent: *\nAllow: /\nSitemap: /sitemap-index.xml.gz\n")
        case "/sitemap-index.xml.gz":
            let index = """
                <?xml version="1.0" encoding="UTF-8"?>
                <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                  <sitemap><loc>\(base)/sitemap-pages.xml</loc></sitemap>
                </sitemapindex>
                """
            return .respond(status: 200, headers: [("Content-Type", "application/gzip")],
                            body: Array((try? Gzip.compress(Array(index.utf8))) ?? Data()))
        case "/sitemap-pages.xml":
            let pages = ["/", "/a", "/orphan"].map { "<url><loc>\(base)\($0)</loc></url>" }.joined()
            return .text(#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#
                         + pages + "</urlset>", contentType: "application/xml")
        default:
            return .html("<title>Missing</title>", status: 404)
        }
    }

    private func externalRoute(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/gone": return .html("<title>Gone</title>", status: 404)
        case "/head-refused":
            return request.method == "HEAD" ? .text("", status: 405) : .html("<title>Fine with GET</title>")
        case "/busy":
            let count = busyHits.withLock { hits -> Int in hits += 1; return hits }
            return count == 1 ? .text("slow down", status: 429, headers: [("Retry-After", "1")]) : .html("<title>Busy</title>")
        default:
            return .html("<title>Missing</title>", status: 404)
        }
    }

    /// Lets the routes reach the object created after the servers.
    private final class Holder: Sendable {
        let site = Mutex<LinkSite?>(nil)
    }
}
