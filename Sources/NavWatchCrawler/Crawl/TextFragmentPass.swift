import Foundation
import NavWatch
import WebKitThread

/// The end of a crawl: matches the text fragments of its links
/// (`#:~:text=…`) against the pages they point at, as rendered.
///
/// Each page that loaded and that links point at with text directives not
/// matched yet is loaded once more, in a view of the pass's own, and its
/// directives are matched when it finishes (`TextFragmentMatch`). What was
/// found is stored with the page's report, so `LinkCheckResult` (and
/// `navwatch links` later) read it from the store. A crawl whose links have
/// no text fragments loads nothing more; a crawl stopped before the pass
/// leaves its text fragments unmatched (not checked), and the next run
/// matches them.
enum TextFragmentPass {
    /// Matches what `store` has not matched yet, with views of
    /// `configuration`, each page given `timeout` to load. A page that does
    /// not finish loading keeps its directives unmatched.
    static func run(store: any CrawlStore, configuration: WebViewConfiguration, timeout: Duration) async throws {
        let targets = try await store.textFragmentTargets().filter { !$0.value.unmatched.isEmpty }
        guard !targets.isEmpty else { return }
        let view = try await Task { @WebKitActor in try WebView(configuration: configuration) }.value
        defer { Task { @WebKitActor in view.close() } }
        for (url, target) in targets.sorted(by: { $0.key < $1.key }) {
            try Task.checkCancellation()
            // Values that are no directive are the link check's to report; nothing to match.
            let values = target.unmatched.sorted().compactMap { value in TextDirective(value: value).map { (value, $0) } }
            guard !values.isEmpty, let page = URL(string: url) else { continue }
            let matches = await Task { @WebKitActor in
                await Self.match(values.map(\.1), on: page, in: view, timeout: timeout)
            }.value
            guard let matches else { continue }
            var found = target.found
            for ((value, _), matched) in zip(values, matches) { found[value] = matched }
            try await store.recordTextFragments(found, for: url)
        }
    }

    /// Loads `page` in `view` and matches `directives` once it finished; nil
    /// when it did not finish or could not run the match.
    @WebKitActor
    private static func match(_ directives: [TextDirective], on page: URL, in view: WebView,
                              timeout: Duration) async -> [Bool]? {
        guard case .finished? = await view.loadDocument(page, timeout: timeout) else { return nil }
        return await TextFragmentMatch.find(directives, in: view)
    }
}
