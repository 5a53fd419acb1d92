import Foundation
import LoopbackServer
import Synchronization

/// A single-page app on a loopback server, with a router written for the
/// tests (no framework): one shell page for every `/app/…` path, which draws
/// the route of its path or hash and moves between routes with
/// `history.pushState` and hash changes.
///
///     pushState routes  /app/about, /app/team, /app/pricing   links (<a href>, the router intercepts clicks)
///                       /app/settings                        a <button onclick>
///                       /app/profile                          an <li onclick>; loaded directly, the server answers
///                                                             another page ("Landing")
///                       /app/secret                           a <button> with a listener; loaded directly: 404
///     hash routes       /app/#/inbox, #/outbox, #/drafts, #/trash   links to hashes of /app/
///     not routes        #nothing (a hash the router ignores), a form whose button posts to /app/submit
///                       (its submit handler posts with `fetch` first, which no navigation policy stops)
///     broken links      /missing-about (on About), /missing-settings (on Settings)
package final class SinglePageApp: Sendable {
    package let server: LoopbackServer
    private let posts = Mutex(0)

    /// How many POST requests the server got.
    package var postCount: Int { posts.withLock { $0 } }

    package static func start() async throws -> SinglePageApp {
        let holder = Mutex<SinglePageApp?>(nil)
        let server = try await LoopbackServer.start(route: { request in
            holder.withLock { $0 }?.route(request) ?? .hang
        })
        let app = SinglePageApp(server: server)
        holder.withLock { $0 = app }
        return app
    }

    private init(server: LoopbackServer) {
        self.server = server
    }

    package func shutdown() async {
        await server.shutdown()
    }

    /// The server's base URL, without a trailing slash.
    package var base: String { server.baseURL.absoluteString.trimmingCharacters(in: ["/"]) }

    private func route(_ request: LoopbackRequest) -> LoopbackResponse {
        if request.method == "POST" {
            posts.withLock { $0 += 1 }
            return .html("<title>Posted</title>")
        }
        switch request.path {
        case "/app/secret": return .html("<title>Missing</title>", status: 404)
        case "/app/profile": return .html("<title>Landing</title><p>Another page</p>")
        case let path where path.hasPrefix("/app/"): return .html(Self.shell)
        default: return .html("<title>Missing</title>", status: 404)
        }
    }

    private static let shell = """
        <!doctype html><html><head><title>App</title></head><body>
        <nav>
          <a data-route href="/app/">Home</a> <a data-route href="/app/about">About</a>
          <a data-route href="/app/team">Team</a> <a data-route href="/app/pricing">Pricing</a>
          <button type="button" onclick="go('/app/settings')">Settings</button>
          <button id="secret">Secret</button>
          <ul><li onclick="go('/app/profile')">Profile</li></ul>
          <a href="/app/#/inbox">Inbox</a> <a href="/app/#/outbox">Outbox</a>
          <a href="/app/#/drafts">Drafts</a> <a href="/app/#/trash">Trash</a> <a href="#nothing">Nothing</a>
          <form method="post" action="/app/submit" onsubmit="fetch('/app/submit', {method: 'POST'})">
            <input name="q"><button>Send</button></form>
        </nav>
        <main id="main"></main>
        <script>
        const pages = {
          '/app/': ['Home', '<p>Welcome</p>'],
          '/app/about': ['About', '<p>About us</p><a href="/missing-about">Old story</a>'],
          '/app/team': ['Team', '<p>The team</p>'],
          '/app/pricing': ['Pricing', '<p>Prices</p>'],
          '/app/settings': ['Settings', '<p>Settings</p><a href="/missing-settings">Old settings</a>'],
          '/app/profile': ['Profile', '<p>Your profile</p>'],
          '/app/secret': ['Secret', '<p>A secret</p>'],
          '#/inbox': ['Inbox', '<p>Inbox</p>'], '#/outbox': ['Outbox', '<p>Outbox</p>'],
          '#/drafts': ['Drafts', '<p>Drafts</p>'], '#/trash': ['Trash', '<p>Trash</p>'],
        };
        function render() {
          const [title, body] = pages[location.hash] || pages[location.pathname] || ['Not found', '<p>No such route</p>'];
          document.title = title;
          document.getElementById('main').innerHTML = body;
        }
        function go(path) { history.pushState({}, '', path); render(); }
        document.addEventListener('click', event => {
          const link = event.target.closest('a[data-route]');
          if (!link) return;
          event.preventDefault();
          go(link.getAttribute('href'));
        });
        document.getElementById('secret').addEventListener('click', () => go('/app/secret'));
        addEventListener('popstate', render);
        addEventListener('hashchange', render);
        render();
        </script></body></html>
        """
}
