import Foundation
import NavWatch
import WebKitThread
import NavWatchSupport

/// Runs on each page the crawl loaded in a web view (its load finished:
/// outcome `ok` or `http-error`), with the live view, before the view loads
/// anything else. What it returns is encoded to JSON and stored as the
/// page's `data`, in the same transaction as its report; nil stores none.
///
/// It runs on the WebKit thread, one page at a time per view (pages of
/// other views run beside it). It may evaluate JavaScript, click, fill and
/// wait for elements; the requests, console messages and page errors that
/// causes are the page's own. A thrown error, a value with no JSON form, or
/// the handler outlasting `CrawlConfiguration.pageHandlerTimeout` (the
/// handler's task is then cancelled, and the crawl goes on without waiting
/// for it) is stored as the page's `handler_error`: it never stops the crawl.
public typealias PageHandler = @WebKitActor @Sendable (CrawledPage) async throws -> (any Encodable & Sendable)?

/// What a page handler sees of a page the crawl loaded.
@WebKitActor
public final class CrawledPage {
    /// The view showing the page. Use it only until the handler returns:
    /// the crawl then loads its next page in it.
    public let view: WebView
    /// The page's report as its load ended (its late window is not in it yet).
    public let report: PageLoadReport
    /// The URLs given to `enqueue(_:)`, in order.
    public private(set) var enqueued: [URL] = []

    init(view: WebView, report: PageLoadReport) {
        self.view = view
        self.report = report
    }

    /// Adds `urls` to the crawl as links of this page: the crawl's scope,
    /// filters, robots.txt and depth apply to them as to the page's own
    /// links, and a URL already seen is not loaded again. They are added
    /// when the handler returns (also when it throws).
    public func enqueue(_ urls: [URL]) {
        enqueued += urls
    }
}

/// The outcome of running a page handler on one page.
struct PageHandlerRun: Sendable {
    /// The handler's value as JSON; nil when it returned nil or failed.
    var data: JavaScriptValue?
    /// Why the handler gave no value, when it failed.
    var error: String?
    /// The URLs it enqueued.
    var enqueued: [URL] = []

    /// Runs `handler` on `page`, for `timeout` at most.
    @WebKitActor
    static func run(_ handler: @escaping PageHandler, on page: CrawledPage, timeout: Duration) async -> PageHandlerRun {
        let answer = FirstAnswer<Result<(any Encodable & Sendable)?, any Error>?>()
        let task = Task { @WebKitActor in
            do { answer.answer(.success(try await handler(page))) } catch { answer.answer(.failure(error)) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            answer.answer(nil)
        }
        let outcome = await answer.wait()
        timer.cancel()
        var run = PageHandlerRun(enqueued: page.enqueued)
        switch outcome {
        case nil:
            task.cancel()
            run.error = "the handler did not return within \(Int((timeout.seconds * 1000).rounded())) ms"
        case .failure(let error)?:
            run.error = Self.describe(error)
        case .success(nil)?:
            break
        case .success(let value?)?:
            do {
                run.data = try PageLoadReport.decoder.decode(JavaScriptValue.self, from: PageLoadReport.encoder.encode(value))
            } catch {
                run.error = "the handler's value has no JSON form: \(Self.describe(error))"
            }
        }
        return run
    }

    /// An error's `description` where it has one.
    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
