import CNavShim
import Foundation

/// navwatch's own script, run at document start in every top-level document
/// of every view, in a script world of its own: the page cannot see it,
/// replace what it calls, or post to its message handler.
///
/// - It tells the view the document's title when the `load` event fires (its
///   listener is the first capturing one, so no page listener can stop it).
///   WebKit announces a new title (`notify::title`) only after it reports the
///   load finished, so without it a finished page would show the previous title.
/// - It reports the page's uncaught errors and unhandled rejections: its
///   listeners run before any of the page's, whatever `window.onerror`
///   returns, and ignore error events the page dispatches itself (untrusted).
/// - It reports `popstate`, which tells a fragment navigation from a
///   `pushState` (both add a history entry; only the first fires it).
/// - It lets Resource Timing keep every request of the page (browsers keep 250
///   by default).
/// - It keeps the URLs of the page's links (`<a href>`, `<area href>`,
///   frames) as the `load` event left them, once the event's last listener
///   has run (`linksAtLoadScript`): links that scripts add later, from the
///   answers to requests they made, are not among them.
///
/// Its messages cross from the web process on the same connection as the
/// load events, so they arrive in order with them (the title ahead of the finish).
enum DocumentScript {
    static let world = NW_SCRIPT_WORLD
    static let messageHandler = "navwatch"
    /// The name, in the script's world, of the links kept at the `load` event.
    private static let linksAtLoad = "navwatchLinksAtLoad"
    /// The URLs of the document's links as the crawl's facts have them: `<a href>`, `<area href>`, frames.
    private static let linksNow = """
        Array.from(document.links, a => a.href).concat(
          Array.from(document.querySelectorAll('iframe[src], frame[src]'), f => f.src))
        """
    /// An async function's body, run in the script's world, that answers the
    /// JSON text of the URLs of the links kept at the `load` event; of the
    /// links now, when the page has not reached it or its task has not run.
    static let linksAtLoadScript = "return JSON.stringify(globalThis.\(linksAtLoad) || \(linksNow));"
    static let source = """
        (() => {
          // The page's id, which the web process extension puts in this world (0 if it did not).
          const page = typeof \(NW_PAGE_ID_PROPERTY) === 'number' ? \(NW_PAGE_ID_PROPERTY) : 0;
          const post = message => webkit.messageHandlers.\(messageHandler).postMessage(JSON.stringify({ ...message, page }));
          const text = value => { try { return String(value); } catch { return Object.prototype.toString.call(value); } };
          const stackOf = value => {
            // The page's objects are not instances of this world's Object.
            try { return value !== null && typeof value === 'object' && typeof value.stack === 'string' && value.stack || null; }
            catch { return null; }
          };
          performance.setResourceTimingBufferSize(100000);
          addEventListener('popstate', event => {
            if (event.isTrusted) post({ event: 'popstate', url: location.href });
          }, true);
          addEventListener('load', () => {
            post({ event: 'load', title: document.title });
            // The links as the load event left them, once all its listeners
            // have run: a task queued now runs before any answer to a
            // request they made. Kept in this world only.
            setTimeout(() => { globalThis.\(linksAtLoad) = \(linksNow); }, 0);
          }, { capture: true, once: true });
          addEventListener('error', event => {
            if (event.target !== window || !event.isTrusted) return;  // a resource's error, or the page's own
            post({ event: 'page-error', kind: 'uncaught-exception', message: event.message, url: event.filename,
                   line: event.lineno, column: event.colno, stack: stackOf(event.error) });
          }, true);
          // WebKit dispatches its own rejection events as untrusted, so none is
          // ignored; where one came from is read from its reason's stack alone.
          addEventListener('unhandledrejection', event => {
            const stack = stackOf(event.reason);
            // Where the reason was made: the first frame of its stack with a URL.
            const frame = stack && stack.split('\\n').map(line => /@(.+):(\\d+):(\\d+)$/.exec(line)).find(Boolean);
            post({ event: 'page-error', kind: 'unhandled-rejection', message: text(event.reason),
                   url: frame ? frame[1] : '', line: frame ? +frame[2] : 0, column: frame ? +frame[3] : 0, stack });
          }, true);
        })();
        """

    /// What the script posts.
    enum Message: Equatable {
        /// The `load` event fired; the document's title then.
        case load(title: String?)
        case pageError(kind: PageError.Kind, message: String, url: URL?, line: Int?, column: Int?, stack: String?)
        /// The document fired `popstate`; its URL then.
        case popState(url: String?)
    }

    private struct Posted: Decodable {
        var event: String
        var page: UInt64?
        var title: String?
        var kind: String?
        var message: String?
        var url: String?
        var line: Int?
        var column: Int?
        var stack: String?
    }

    /// Decodes a posted message, with the id of the page that posted it (0
    /// when unknown); nil for anything else.
    static func decode(_ text: String) -> (page: UInt64, message: Message)? {
        guard let posted = try? JSONDecoder().decode(Posted.self, from: Data(text.utf8)) else { return nil }
        let message: Message
        switch posted.event {
        case "load":
            message = .load(title: posted.title)
        case "popstate":
            message = .popState(url: posted.url)
        case "page-error":
            guard let kind = posted.kind.flatMap(PageError.Kind.init(rawValue:)) else { return nil }
            // The engine says 0 and "" for what it does not know.
            message = .pageError(kind: kind, message: posted.message ?? "",
                                 url: posted.url.flatMap { $0.isEmpty ? nil : URL(string: $0) },
                                 line: posted.line.flatMap { $0 > 0 ? $0 : nil },
                                 column: posted.column.flatMap { $0 > 0 ? $0 : nil }, stack: posted.stack)
        default:
            return nil
        }
        return (posted.page ?? 0, message)
    }
}
