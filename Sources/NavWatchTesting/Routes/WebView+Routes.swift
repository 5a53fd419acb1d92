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
    public func route(_ glob: String, _ handler: @escaping @Sendable (RouteRequest) async throws -> RouteAction)
        async throws(RouteError) {
        try await route(try RoutePattern(glob: glob), handler)
    }

    /// Answers the requests whose URL `pattern` matches with what `handler`
    /// returns, as Playwright's `page.route`.
    ///
    /// - The routes set last are asked first; a request no route matches
    ///   goes to the network unchanged.
    /// - `handler` runs in a task of the caller's (its task-local values,
    ///   so under Swift Testing it belongs to the test that set it), once
    ///   for each request, several at once when requests come at once. When
    ///   it throws, the request is aborted and the error is an issue of that
    ///   test: `route <pattern> threw for GET <url>: <error>`.
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
    /// - A trace records the requests a route answered (`Trace.Request.routed`).
    ///
    /// - Throws: `RouteError.cannotRoute` for a closed view, or one without
    ///   storage of its own (`WebViewConfiguration.Storage.isolated`, as
    ///   `.testing` has), whose requests other views would share.
    public func route(_ pattern: RoutePattern, _ handler: @escaping @Sendable (RouteRequest) async throws -> RouteAction)
        async throws(RouteError) {
        let router = try await router()
        let (jobs, continuation) = AsyncStream.makeStream(of: RouteJob.self)
        let description = pattern.description
        // Made here, so that handlers run with the caller's task-local values (its test).
        Task {
            for await job in jobs {
                Task {
                    do {
                        job.answer.resume(returning: try await handler(job.request))
                    } catch {
                        if Test.current != nil {
                            Issue.record("route \(description) threw for \(job.request.method) \(job.request.url.absoluteString): \(error)")
                        }
                        job.answer.resume(returning: .abort(.failed))
                    }
                }
            }
        }
        router.add(pattern, jobs: continuation)
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
            try interceptRequests(through: nil)  // whether it can, before starting anything
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
