import Foundation
import NavWatch
import Synchronization
import WebKitThread

/// Finds where a finished page's clickable elements lead, for crawls with
/// routes (`CrawlConfiguration.routeClicks`): the routes of a single-page app
/// that a button, an element with a click handler or a hash link reaches
/// by a same-document navigation, and the pages a click would load.
///
/// The rules:
/// - The clicks happen in a view of the explorer's own, which loads the page
///   once more when the page shown has a candidate new to the crawl: the
///   report of the page has nothing of them (no request, error or reload).
/// - Candidates, in document order: `button`, elements whose role is
///   `button`, `link`, `menuitem` or `tab`, elements with an `onclick`
///   attribute, elements a style sheet rule or their `style` attribute
///   gives a hand pointer (`cursor: pointer`; not those whose parent has one
///   too), and links to a fragment of the page that
///   no element has (`#/users`, `#!/settings`). Never: links to other pages
///   (the crawl follows those), a form's submit or reset buttons and inputs,
///   disabled or hidden elements.
/// - Each candidate is clicked once per crawl: one with the same element,
///   text and target (`RouteMemory`) was clicked already on an earlier page.
///   At most `limit` are clicked per page.
/// - A click never loads another document: every navigation a click asks
///   for is refused (so no form is submitted and no download starts), and
///   its URL is recorded as where the element leads, unless its method is
///   not GET. A window it asks for is recorded likewise.
/// - Nothing the explorer's view does changes a server: it sends only GET
///   and HEAD requests (`WebViewConfiguration.readOnlyRequests`). Any other
///   request a page's handler makes (a form's POST, `fetch` or
///   `XMLHttpRequest` with another method, `navigator.sendBeacon`, an
///   `<a ping>`) is refused before it leaves WebKit, and recorded as
///   "METHOD URL" in what `explore` returns. Every dialog is dismissed
///   (`confirm` answers false, `prompt` null), so "Really delete?" is
///   answered no.
/// - Going back after a click allows only the history step itself, and
///   loading the page again only that page: a navigation the page asks for
///   meanwhile (a form submitted on `popstate` or `hashchange`) is refused.
/// - Bounded: the exploration of a page, its load included, ends within the
///   page's timeout, and at most `maximumCandidates` elements are listed per
///   page (the first in document order).
/// - A click whose same-document navigation changes the URL has reached a
///   route when it pushed or replaced the URL, or changed only the fragment
///   and, with it, the document's title or text. The route's title is read
///   at once, after the page's own handling of the click; then the view
///   goes back in its history (or, after a replace, loads the page again)
///   before the next click.
@WebKitActor
final class RouteExplorer {
    private let memory: RouteMemory
    private let limit: Int
    private let configuration: WebViewConfiguration
    /// The view the clicks happen in: never the one whose page is being
    /// reported, so the clicks' requests, errors and reloads are in no report.
    private var clickView: WebView?
    /// Pages loaded in `clickView` since it was made; a new one after `recycleAfter`.
    private var clickViewPages = 0
    private let recycleAfter: Int

    /// The most clickable elements listed on one page, in document order.
    static let maximumCandidates = 500

    /// What the exploration of one page found.
    struct Exploration: Sendable {
        /// Where the clickable elements lead, as links with the element and
        /// its text; route links have `reached` and `routeTitle`.
        var links: [PageFacts.Link] = []
        /// The requests the clicks caused that the explorer's view refused
        /// (not GET or HEAD): "METHOD URL", in order.
        var refused: [String] = []
    }

    init(memory: RouteMemory, limit: Int, configuration: WebViewConfiguration, recycleAfter: Int) {
        self.memory = memory
        self.limit = limit
        var configuration = configuration
        configuration.readOnlyRequests = true
        self.configuration = configuration
        self.recycleAfter = max(1, recycleAfter)
    }

    /// Closes the view the clicks happen in.
    func close() {
        clickView?.close()
        clickView = nil
    }

    /// Where the clickable elements of the finished page `shown` shows
    /// (loaded from `page`) lead, and what the clicks' requests the
    /// explorer refused; within `timeout` from the call.
    ///
    /// `shown` is only read: its candidates, to see whether any is new to the
    /// crawl. When one is, the page is loaded once more in a view of the
    /// explorer's own and clicked there.
    func explore(_ shown: WebView, page: URL, timeout: Duration) async -> Exploration {
        let deadline = ContinuousClock.now + timeout
        let listed = await Self.candidates(in: shown) ?? []
        guard listed.contains(where: { !memory.contains($0.signature(origin: page)) }) else { return Exploration() }
        if clickViewPages >= recycleAfter { close() }
        guard let view = clickView ?? (try? WebView(configuration: configuration)) else { return Exploration() }
        clickView = view
        clickViewPages += 1
        let gate = Gate(page: page)
        let previousDelegate = view.navigationDelegate
        view.navigationDelegate = gate
        defer { view.navigationDelegate = previousDelegate }
        var exploration = Exploration()
        switch await view.loadDocument(page, timeout: Self.remaining(until: deadline)) {
        case .finished?:
            exploration.links = await click(in: view, page: page, gate: gate, deadline: deadline)
        case .failed(_, let error, _)? where error.kind == .webProcessCrashed:
            close()
        default:
            if view.isClosed { close() }
        }
        exploration.refused = gate.refused
        return exploration
    }

    /// The time left until `deadline`, never below zero.
    private static func remaining(until deadline: ContinuousClock.Instant) -> Duration {
        max(.zero, deadline - ContinuousClock.now)
    }

    /// Clicks the candidates of `page`, which `view` shows, until `deadline`.
    private func click(in view: WebView, page: URL, gate: Gate, deadline: ContinuousClock.Instant) async -> [PageFacts.Link] {
        var found: [PageFacts.Link] = []
        var candidates = await Self.candidates(in: view) ?? []
        var index = 0, clicks = 0
        while index < candidates.count, clicks < limit, ContinuousClock.now < deadline {
            let candidate = candidates[index]
            index += 1
            guard memory.insert(candidate.signature(origin: page)) else { continue }
            clicks += 1
            let before = view.url, state = await Self.state(of: view)
            gate.begin(document: before)
            _ = try? await view.click("[\(Self.marker)=\"\(candidate.index)\"]",
                                      timeout: min(.seconds(5), Self.remaining(until: deadline)))
            let outcome = gate.end()
            for url in outcome.leadsTo where url.scheme == "http" || url.scheme == "https" {
                found.append(PageFacts.Link(url: url.absoluteString, href: url.absoluteString, text: candidate.text, rel: "",
                                            element: candidate.element))
            }
            guard let change = outcome.sameDocument.last, change.url != before else { continue }
            let after = await Self.state(of: view)
            if change.kind != .fragment || after?.content != state?.content {
                // A title the click did not change may be one the route sets later: not the route's.
                let title = after?.title != state?.title && after?.title.isEmpty == false ? after?.title : nil
                var link = PageFacts.Link(url: change.url.absoluteString, href: candidate.href ?? change.url.absoluteString,
                                          text: candidate.text, rel: "", element: candidate.element)
                link.reached = change.kind
                link.routeTitle = title
                found.append(link)
            }
            // The next click starts from the page as it was: back where the
            // click added a history entry, else loaded again.
            let addedEntry = change.kind == .push || change.kind == .fragment
            gate.phase = .goingBack
            let wentBack = addedEntry ? await Self.goBack(view, to: before) : false
            if !wentBack {
                gate.phase = .reloading
                let reloaded = await view.loadDocument(page, timeout: Self.remaining(until: deadline))
                gate.phase = .clicking
                guard case .finished? = reloaded else { break }
            }
            gate.phase = .clicking
            // Marked anew: the page may have drawn its elements again.
            candidates = await Self.candidates(in: view) ?? []
        }
        return found
    }

    /// Goes back in `view`'s history; whether the view then shows `url` within a second.
    private static func goBack(_ view: WebView, to url: URL?) async -> Bool {
        guard (try? await view.evaluateJavaScript("history.back()")) != nil else { return false }
        let deadline = ContinuousClock.now + .seconds(1)
        while view.url != url {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
        }
        return true
    }

    /// A clickable element the candidates script marked.
    struct Candidate: Decodable, Sendable {
        var index: Int
        var element: String
        var text: String
        /// A hash link's `href`, as written.
        var href: String?
        /// What the element runs or points at: its `onclick` or `href` attribute.
        var action: String

        /// What makes two candidates the same click, on pages of one origin.
        func signature(origin page: URL) -> String {
            [page.scheme ?? "", page.host ?? "", String(page.port ?? 0), element, text, action].joined(separator: "\u{1F}")
        }
    }

    /// The attribute the candidates script marks each candidate with.
    private static let marker = "data-navwatch-route"

    /// Marks the page's candidates and describes them; nil when the page cannot run the script.
    private static func candidates(in view: WebView) async -> [Candidate]? {
        await PageFacts.readInOwnWorld("return " + candidatesScript, from: view)
    }

    /// A document's title, and its title and text hashed: what a hash route changes.
    private struct State: Decodable, Sendable {
        var title: String
        var content: String
    }

    private static func state(of view: WebView) async -> State? {
        await PageFacts.readInOwnWorld("""
            return JSON.stringify((() => {
              const text = document.title + '\\u0000' + (document.body ? document.body.innerText : '');
              let hash = 5381;
              for (let i = 0; i < text.length; i++) hash = (hash * 33 + text.charCodeAt(i)) >>> 0;
              return {title: document.title, content: text.length + ':' + hash};
            })())
            """, from: view)
    }

    /// Marks and describes the candidates. It looks only at elements that
    /// selectors find: the ones above, and those the page's own style sheets
    /// (those it may read: not other origins') give `cursor: pointer`, or
    /// whose `style` attribute names a cursor. Asking every element of a
    /// large page for its style cost 12 % of a crawl's pace on the Python
    /// docs. It runs in navwatch's own script world, as the state script does.
    private static let candidatesScript = """
        JSON.stringify((() => {
          const marker = '\(marker)';
          for (const e of document.querySelectorAll('[' + marker + ']')) e.removeAttribute(marker);
          if (!document.body) return [];
          const here = location.origin + location.pathname + location.search;
          const base = 'button, [role=button], [role=link], [role=menuitem], [role=tab], [onclick], a[href*="#"], area[href*="#"]';
          const pointerSelectors = ['[style*="cursor"]'];
          const collect = rules => {
            for (const rule of rules) {
              if (rule.selectorText && rule.style && rule.style.cursor === 'pointer') pointerSelectors.push(rule.selectorText);
              else if (rule.cssRules) collect(rule.cssRules);  // @media, @supports, @layer
            }
          };
          for (const sheet of document.styleSheets) { try { collect(sheet.cssRules); } catch (_) {} }
          // Selectors no element can match (pseudo-elements) would make the query throw.
          const pointer = pointerSelectors.filter(s => { try { document.body.matches(s); return true; } catch (_) { return false; } })
            .join(', ');
          const roles = new Set(['button', 'link', 'menuitem', 'tab']);
          const isBase = e => e.localName === 'button' || roles.has(e.getAttribute('role')) || e.hasAttribute('onclick')
            || (e.localName === 'a' || e.localName === 'area') && (e.getAttribute('href') || '').includes('#');
          const ordered = [];
          for (const e of document.body.querySelectorAll(base + ', ' + pointer)) {
            // A hand over an element whose parent has one is the parent's.
            if (isBase(e) || getComputedStyle(e).cursor === 'pointer' && !(e.parentElement && e.parentElement.matches(pointer))) {
              ordered.push(e);
            }
          }
          const text = e => (e.innerText || e.getAttribute('aria-label') || e.getAttribute('title') || '')
            .replace(/\\s+/g, ' ').trim().slice(0, 200);
          const submits = e => {
            const type = (e.getAttribute('type') || '').toLowerCase();
            if (e.localName === 'input') return true;
            return e.localName === 'button' && type !== 'button' && (e.form !== null || type === 'submit' || type === 'reset');
          };
          const candidates = [], seen = new Set();
          for (const e of ordered) {
            if (candidates.length >= \(maximumCandidates)) break;
            const tag = e.localName;
            let href = null;
            if (tag === 'a' || tag === 'area') {
              const written = e.getAttribute('href');
              if (written === null) continue;
              let fragment;
              if (written.startsWith('#')) {
                fragment = written.slice(1);
              } else {
                let url;
                try { url = new URL(e.href, location.href); } catch (_) { continue; }
                // The crawl follows links to other documents.
                if (url.origin + url.pathname + url.search !== here || !url.hash) continue;
                fragment = url.hash.slice(1);
              }
              try { fragment = decodeURIComponent(fragment); } catch (_) {}
              if (fragment === '' || document.getElementById(fragment) || document.getElementsByName(fragment).length) continue;
              href = written;
            } else if (e.closest('a[href]') || ['input', 'select', 'textarea', 'label', 'option'].includes(tag)) {
              continue;
            }
            if (submits(e) || e.disabled || e.getAttribute('aria-disabled') === 'true') continue;
            const candidate = {index: candidates.length, element: tag, text: text(e), href,
                               action: e.getAttribute('onclick') || e.getAttribute('href') || ''};
            // The same element, text and action again is the same click (a copy button on every example).
            const key = tag + '\\u0000' + candidate.text + '\\u0000' + candidate.action;
            if (seen.has(key)) continue;
            if (!e.getClientRects().length || getComputedStyle(e).visibility !== 'visible') continue;
            seen.add(key);
            e.setAttribute(marker, String(candidates.length));
            candidates.push(candidate);
          }
          return candidates;
        })())
        """

    /// The explorer's view's delegate: refuses every navigation that would
    /// load another document and records where it led, dismisses every
    /// dialog, and records the requests the view refused.
    private final class Gate: NavigationDelegate {
        struct Outcome {
            var leadsTo: [URL] = []
            var sameDocument: [SameDocumentNavigation] = []
        }

        /// What the explorer is doing, which decides the navigations allowed.
        enum Phase {
            /// Loading the page or clicking: only the page itself, and
            /// fragment navigations within the document shown.
            case clicking
            /// Going back after a click: only the history step.
            case goingBack
            /// Loading the page again: only the page (and a blank page before it).
            case reloading
        }

        var phase = Phase.clicking
        /// "METHOD URL" of each request the view refused, the first `maximumRefused`.
        private(set) var refused: [String] = []
        static let maximumRefused = 100
        private let page: URL
        private var document: URL?
        private var outcome = Outcome()
        private var clicked = false

        init(page: URL) {
            self.page = page
        }

        func begin(document: URL?) {
            self.document = document
            outcome = Outcome()
            clicked = true
        }

        func end() -> Outcome {
            document = nil
            clicked = false
            return outcome
        }

        func webView(_ webView: WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
            let method = (action.httpMethod ?? "GET").uppercased()
            let isGET = method == "GET"
            switch phase {
            case .goingBack:
                return action.kind == .backForward && isGET ? .allow : .cancel
            case .reloading:
                return loadsPage(action, isGET: isGET) ? .allow : .cancel
            case .clicking:
                // The page's own load (and its redirects) before the clicks.
                guard clicked else { return loadsPage(action, isGET: isGET) ? .allow : .cancel }
                // A fragment navigation stays in the document: let it happen.
                if action.url.fragment != nil, let document, isGET, Self.sameDocument(action.url, document) {
                    return .allow
                }
                if isGET { outcome.leadsTo.append(action.url) }
                return .cancel
            }
        }

        /// Whether `action` loads the page itself: it, a blank page before
        /// it (`leaveDocument`), or a server redirect of its load.
        private func loadsPage(_ action: NavigationAction, isGET: Bool) -> Bool {
            isGET && (Self.sameDocument(action.url, page) || action.url.absoluteString == "about:blank" || action.isRedirect)
        }

        private static func sameDocument(_ a: URL, _ b: URL) -> Bool {
            URLCanonicalizer.document(a.absoluteString) == URLCanonicalizer.document(b.absoluteString)
        }

        func webView(_ webView: WebView, didSameDocumentNavigation navigation: SameDocumentNavigation) {
            outcome.sameDocument.append(navigation)
        }

        func webView(_ webView: WebView, didRequestNewWindow request: NewWindowRequest) {
            if clicked, phase == .clicking, let url = request.url { outcome.leadsTo.append(url) }
        }

        func webView(_ webView: WebView, runScriptDialog dialog: ScriptDialog) -> ScriptDialogResponse {
            .dismiss
        }

        func webView(_ webView: WebView, didLog message: ConsoleMessage) {
            let prefix = WebViewConfiguration.refusedRequestPrefix
            guard message.source == .network, message.text.hasPrefix(prefix), refused.count < Self.maximumRefused else { return }
            // "navwatch refused METHOD URL (why)"
            refused.append(message.text.dropFirst(prefix.count).split(separator: " ", maxSplits: 2).prefix(2)
                .joined(separator: " "))
        }
    }
}

/// The clicks a crawl made, by `RouteExplorer.Candidate.signature`: each is made once per crawl.
package final class RouteMemory: Sendable {
    private let clicked = Mutex<Set<String>>([])

    package init() {}

    /// Whether `signature` is new (and now remembered).
    func insert(_ signature: String) -> Bool {
        clicked.withLock { $0.insert(signature).inserted }
    }

    /// Whether `signature` was clicked already.
    func contains(_ signature: String) -> Bool {
        clicked.withLock { $0.contains(signature) }
    }
}
