import Foundation
import NavWatch
import Testing
import WebKitThread

extension WebView {
    // MARK: Routes

    /// Answers the requests of the view, and of the popups its pages open,
    /// whose URL matches `glob` (`RoutePattern(glob:)`) with what `handler`
    /// returns: a response of its own, a failure, or the request sent on,
    /// changed or not. Every request counts, the page's own documents,
    /// scripts, style sheets, images, `fetch` and XMLHttpRequest among them,
    /// over https as well as http. See `route(_:_:)` with a `RoutePattern`.
    ///
    ///     try await view.route("**/api/items") { _ in
    ///         .fulfill(status: 500, contentType: "application/json", body: #"{"error":"down"}"#)
    ///     }
    ///
    /// - Throws: `RouteError.invalidPattern` for a glob that does not parse;
    ///   `RouteError.cannotRoute` as `route(_:_:)` says.
    public func route(_ glob: String, _ handler: @escaping RouteHandler)
        async throws(RouteError) {
        try await route(try RoutePattern(glob: glob), handler)
    }

    /// Answers the requests whose URL `pattern` matches with what `handler`
    /// returns, as Playwright's `page.route`.
    ///
    /// - The routes set last are asked first; a request no route matches
    ///   goes to the network unchanged.
    /// - `handler` runs once for each request, several at once when
    ///   requests come at once, on the proxy's thread until it first
    ///   suspends (`RouteHandler`), never on the WebKit thread. When it throws, the
    ///   request is aborted and, under Swift Testing, the error is an issue
    ///   of the test that set the route: `route <pattern> threw for GET
    ///   <url>: <error>`.
    /// - What goes on to the network (`.continue`, and every request no
    ///   route matches) goes through the view's `networkProxy` when it has
    ///   one, so the private-address guard still refuses what it refuses,
    ///   and its certificates are checked as `tlsErrors` says. https is read
    ///   through a certificate navwatch makes for each host and tells only
    ///   this view (and its popups) to accept.
    /// - From the first route on, every request of the view goes through a
    ///   proxy of its own on 127.0.0.1 until the view closes: a request the
    ///   page has already sent finishes as it started. WebSockets and other
    ///   protocol upgrades are refused (`501`) while it does.
    /// - A CORS preflight (`OPTIONS`) of a request a route matches is
    ///   answered for it, allowing what it asks, as Playwright does: the
    ///   handler gets the request itself.
    /// - A trace records the requests a route answered (`Trace.Request.routed`).
    ///
    /// - Throws: `RouteError.cannotRoute` for a closed view, or one without
    ///   storage of its own (`WebViewConfiguration.Storage.isolated`, as
    ///   `.testing` has), whose requests other views would share.
    public func route(_ pattern: RoutePattern, _ handler: @escaping RouteHandler)
        async throws(RouteError) {
        let router = try await router()
        let (failures, continuation) = AsyncStream.makeStream(of: String.self)
        // Made here, so that what the handler throws is an issue of the caller's test.
        Task {
            for await failure in failures where Test.current != nil {
                Issue.record(Comment(rawValue: failure))
            }
        }
        router.add(pattern, handler: handler, failures: continuation)
    }

    /// Removes the routes set with `glob` (or with a `RoutePattern` of that
    /// description). Requests already given to them are still answered.
    public func unroute(_ glob: String) {
        (interception as? Router)?.remove(glob)
    }

    /// Removes every route. The view's requests still go through its proxy, unchanged.
    public func unrouteAll() {
        (interception as? Router)?.remove(nil)
    }

    /// The view's router, started and set as its proxy on the first call.
    private func router() async throws(RouteError) -> Router {
        if let router = interception as? Router { return router }
        do {
            try checkInterceptable()  // before starting anything
        } catch {
            throw .cannotRoute(error.description)
        }
        let router: Router
        do {
            router = try await Router.start(for: self)
        } catch {
            throw .cannotRoute("cannot start the proxy of its routes: \(error)")
        }
        // Another call may have made one meanwhile.
        if let made = interception as? Router { return made }
        do {
            try interceptRequests(through: router.proxyURL)
        } catch {
            throw .cannotRoute(error.description)
        }
        interception = router
        return router
    }
}
