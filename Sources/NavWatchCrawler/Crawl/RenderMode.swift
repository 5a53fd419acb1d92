/// Which pages of a crawl are rendered in a web view, and which are checked
/// from their HTML alone (`CrawlConfiguration.render`, `navwatch crawl --render`).
public enum RenderMode: String, Sendable, CaseIterable {
    /// Every page rendered, with full reports (the default).
    case always
    /// The link checker's mode: every page fetched with plain HTTP and
    /// parsed, and rendered only where its scripts could change its links,
    /// ids or title, as decided by rendering samples of each kind of page
    /// (`RenderSampler`). Reports say which path made them (`rendered`,
    /// `render_reason`).
    case auto
    /// No page rendered: links, ids and titles from the HTML alone; links
    /// that scripts add are not found. No web view is created.
    case never

    /// How long a rendered page's report waits for its own requests to go
    /// quiet in a crawl in this mode when `navwatch crawl` is given no
    /// `--settle` (a `CrawlConfiguration`'s `settle` is 500 ms until set):
    /// 500 ms when every page is rendered, as Playwright's network idle;
    /// 100 ms in the link checker's mode, whose renders are there for their
    /// links (read at the load event) and their requests, which keep the
    /// window open while they run; the late console messages a longer wait
    /// catches are no link problems. Only the crawl's last renders wait for
    /// it in full: a view's next page closes the window sooner.
    package var defaultSettle: Duration {
        self == .auto ? .milliseconds(100) : LateWindow.defaultSettle
    }
}
