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
}
