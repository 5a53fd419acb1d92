import LoopbackServer

/// The small site `navwatch demo` serves on 127.0.0.1: a page, a redirect,
/// a 404 and a slow page.
package enum DemoSite {
    /// The paths the demo watches, in order.
    package static let paths = ["/", "/old-home", "/missing", "/slow"]

    package static let route: LoopbackServer.Route = { request in
        switch request.path {
        case "/":
            return .html("""
                <!doctype html><html><head><title>navwatch demo</title>
                <link rel="stylesheet" href="/style.css"></head>
                <body><h1>navwatch demo</h1><p>A page served on 127.0.0.1.</p>
                <a href="/old-home">old home</a> <a href="/missing">missing</a> <a href="/slow">slow</a>
                <script src="/app.js"></script></body></html>
                """)
        case "/style.css":
            return .text("body { font-family: sans-serif; }", contentType: "text/css")
        case "/app.js":
            return .text("document.body.dataset.ready = 'yes';", contentType: "text/javascript")
        case "/old-home":
            return .redirect(to: "/", status: 301)
        case "/slow":
            return .delayed(.milliseconds(800), .html("""
                <!doctype html><title>Slow page</title><p>worth the wait</p>
                <script>
                addEventListener("load", () => console.warn("slow page: the server took 800 ms"));
                </script>
                """))
        default:
            return .html("""
                <!doctype html><title>Not found</title><p>nothing here</p>
                <script>reportMissingPage(location.pathname)</script>
                """, status: 404)
        }
    }
}
