import Foundation
import NavWatch

/// How a crawl runs. Every property has a default that works.
public struct CrawlConfiguration: Sendable {
    /// The pages the crawl starts from, at depth 0, after `remaps` rewrote
    /// them; the scope is measured from them.
    public var seeds: [URL]
    /// Which discovered links are followed, relative to the seeds; links outside
    /// it are reported as skipped, or checked with `checkExternal`. Same origin
    /// by default.
    public var scope: CrawlScope = .sameOrigin
    /// Regular expressions; when any is given, a link must match one.
    public var include: [String] = []
    /// Regular expressions; a link that matches one is not followed.
    public var exclude: [String] = []
    /// Links matching one of these regular expressions are neither followed
    /// nor checked, whatever the scope: reported as skipped (`ignored`).
    public var ignore: [String] = []
    /// Rewrites of the URLs found on pages, before anything else looks at
    /// them (`URLRemap.apply`): the first that matches a link rewrites it.
    public var remaps: [URLRemap] = []
    /// How many links away from a seed a page may be and still be loaded (a
    /// seed is at depth 0); deeper links are reported as skipped (`maxDepth`).
    /// Nil: no limit.
    public var maxDepth: Int?
    /// How many pages the crawl loads at most, counted across every run and
    /// worker of the crawl; links still queued when it is reached are reported
    /// as skipped (`maxPages`). Links and resources checked with plain HTTP are not counted.
    /// Nil: no limit.
    public var maxPages: Int?
    /// Pages loading at once, each in a view of its own page loader; a
    /// loader's views share one web process, and the loaders keep 24 views
    /// between them (at least 2 each) for pages whose late windows are open.
    public var concurrency = 2
    /// How long a page's navigation in a view, and each HTTP request the crawl
    /// makes itself (pages read from their HTML, robots.txt, sitemaps, external
    /// checks), may take before it fails as a timeout.
    public var timeout: Duration = .seconds(30)
    /// How long a finished page's late window stays open with no network
    /// activity of the page (`LateWindow`): its console messages, page
    /// errors and requests until then are in its report. The next pages load
    /// in other views meanwhile, so the window lasts at least this long after
    /// the finish unless all of its loader's views hold open windows.
    public var settle: Duration = LateWindow.defaultSettle
    /// The pause between two requests to the same host.
    public var delay: Duration = .zero
    /// Pages and link checks in flight per host, across all workers; nil: no limit.
    public var hostConcurrency: Int?
    /// Whether each host's robots.txt is fetched and obeyed for `robotsAgent`:
    /// a page it disallows is reported as skipped (`robots`) and not loaded.
    public var obeyRobots = true
    /// Whether links that leave the scope are checked with a plain HTTP
    /// request (HEAD, then GET where HEAD is refused) instead of skipped.
    /// They get a report with their status and `checked_with`; they are
    /// never loaded in a web view, and their links are not followed.
    public var checkExternal = false
    /// The pause between two checks of links on the same other site.
    public var externalDelay: Duration = .seconds(1)
    /// Links and resources outside the scope answered lately, which are not checked again (`--recheck-after`).
    package var recentChecks: RecentChecks?
    /// Where to find pages besides the links: a sitemap (or sitemap index,
    /// gzip too), or the `Sitemap:` lines of each seed's robots.txt.
    public var sitemap: SitemapSource?
    /// Extra attempts for transient failures (timeouts, resets, crashes, 5xx, 429).
    public var retries = 2
    /// The first retry waits this long, the next twice as long, and so on (plus jitter).
    public var backoff: Duration = .milliseconds(500)
    /// Pages a view loads before it is replaced by a fresh one.
    public var recycleAfter = 1000
    /// Where a PNG of each finished page's viewport goes; nil takes none.
    /// Each file is named from the page's URL (`PageLoadReport.screenshotName`)
    /// and the report names it.
    public var screenshotDirectory: URL?
    /// How the crawl's web views are set up. The crawl sets `networkProxy`
    /// itself, to its private-address guard, unless `allowPrivateAddresses`.
    public var webView = WebViewConfiguration()
    /// Runs on each page loaded in a view, with the live view, before the
    /// view moves on; its value is stored as the page's `data` (`PageHandler`).
    public var pageHandler: PageHandler?
    /// How long a page handler may run on one page before it is cancelled
    /// and the page's `handler_error` says so.
    public var pageHandlerTimeout: Duration = CrawlConfiguration.defaultHandlerTimeout
    /// The default of `pageHandlerTimeout`: 30 seconds.
    public static let defaultHandlerTimeout: Duration = .seconds(30)
    /// Which pages are rendered in a web view and which are read from their
    /// HTML: every page (`always`, the default), only those whose scripts
    /// could change their links (`auto`, the link checker's mode), or none
    /// (`never`). NavWatchCLI.docc/CheckingLinks.md says what a page read
    /// from HTML reports. A page read from HTML runs no `pageHandler` and
    /// has no screenshot.
    public var render: RenderMode = .always
    /// The routes of single-page apps: when set, the clickable elements of
    /// each page rendered in a view (buttons, elements with click handlers
    /// or a hand pointer, `role=link`/`menuitem`, links to hash routes) are
    /// clicked, at most this many per page and each the first time the crawl
    /// meets it (`RouteExplorer`), and where they lead becomes part of the
    /// link graph: a route a click reached in the page (its URL, `#/…`
    /// included, with how it was reached and its title there), which the
    /// crawl then loads directly; a page a click would load (never loaded
    /// from the click: no form is submitted, no download starts). Nil (the
    /// default): nothing is clicked. A run's own choice, not stored with the crawl.
    public var routeClicks: Int?
    /// `routeClicks` when routes are asked for without a number (`navwatch crawl --routes`).
    public static let defaultRouteClicks = 20
    /// The network the rendered pages load over: each loader's views (one
    /// per `concurrency`) share a link of this profile, made by a guard of
    /// their own (`NetworkProfile`). Nil (the default): loopback speed.
    /// Pages read from their HTML (`render` `auto`, `never`), robots.txt,
    /// sitemaps and external checks are not slowed. A run's own choice, not
    /// stored with the crawl; reports record it (`PageLoadReport.network`).
    public var network: NetworkProfile?
    /// How many times each rendered page that loaded is loaded (1, the
    /// default: once). Above 1 the crawl's views keep no memory cache
    /// (`WebViewConfiguration.memoryCache`), so that every load fetches what
    /// a first visit does, and the further loads come after the crawl, in
    /// rounds: every page's second load, then every page's third, so that
    /// two loads of a page are never back to back. Each report keeps every
    /// run's timings (`PageLoadReport.runs`) and their medians and spread.
    /// A crawl stopped during the rounds finishes them when run again.
    public var runs = 1
    /// Pages fetched and read from their HTML at once, with `render` `auto` or
    /// `never` (`concurrency` is the number of views that render).
    public var readConcurrency = 8
    /// `render == .auto`: what `navwatch crawl --fast` sets.
    @available(*, deprecated, renamed: "render", message: "fast is render = .auto")
    public var fast: Bool {
        get { render == .auto }
        set { render = newValue ? .auto : .always }
    }
    /// Whether requests may reach loopback, private, link-local, CGNAT,
    /// unique-local and unspecified addresses of hosts other than the seeds'.
    /// Off (the default): every request of the crawl, the engine's (pages,
    /// redirects, subresources, `fetch`, WebSockets) and its own (robots.txt,
    /// sitemaps, external checks), goes through a `PrivateAddressGuard`,
    /// which checks the address a name resolves to when it connects; a
    /// page it refuses is reported `blocked`. The crawls of one process share
    /// one guard (started by the first, kept until the process ends), each
    /// allowing its seeds' hosts while it runs. A run's own choice: workers
    /// joining a shared crawl each make it.
    public var allowPrivateAddresses = false
    /// The product token matched against robots.txt groups.
    public var robotsAgent = "navwatch"
    /// This worker's name in the store: who holds a lease, who loaded a page.
    public var worker = CrawlConfiguration.defaultWorkerName
    /// How long a lease lasts without renewal. A running worker renews its
    /// leases three times per period; a dead worker's pages return to the
    /// frontier when it runs out.
    public var leaseDuration: Duration = .seconds(30)
    /// How often a worker waiting for other workers' pages asks the store
    /// again, when the store is shared.
    package var pollInterval: Duration = .milliseconds(250)

    /// `host-pid`: unique among live workers.
    public static var defaultWorkerName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// A configuration that crawls from `seeds` with every other setting at its
    /// default.
    public init(seeds: [URL]) {
        self.seeds = seeds
    }
}

/// Where a crawl finds a sitemap.
public enum SitemapSource: Sendable, Equatable {
    /// This sitemap or sitemap index.
    case url(URL)
    /// The `Sitemap:` lines of each seed origin's robots.txt, else its `/sitemap.xml`.
    case auto
}

/// Why a crawl could not start.
public struct CrawlError: Error, CustomStringConvertible, Sendable {
    /// The reason, as one sentence for the user.
    public var description: String
}
