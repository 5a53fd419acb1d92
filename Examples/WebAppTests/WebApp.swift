import LoopbackServer

/// The web app under test: a login form that redirects to a dashboard, a
/// home page, a page that logs a console error, one that throws, and a
/// gallery whose image is missing. Yours would be a Hummingbird or Vapor
/// app started the same way, on 127.0.0.1 and a free port.
enum WebApp {
    static func start() async throws -> LoopbackServer {
        try await LoopbackServer.start(route: route)
    }

    static func route(_ request: LoopbackRequest) -> LoopbackResponse {
        switch request.path {
        case "/":
            return page("Home", "<h1>Welcome</h1><a href=\"/login\">Log in</a>")
        case "/login":
            return page("Log in", """
                <form action="/session" method="get">
                  <label>Email <input id="email" name="email" type="email" required></label>
                  <label>Password <input id="password" name="password" type="password" required></label>
                  <button type="submit">Log in</button>
                </form>
                """)
        case "/session":
            return .redirect(to: "/dashboard", status: 303)
        case "/dashboard":
            return page("Dashboard", """
                <h1>Dashboard</h1><ul id="projects"></ul>
                <script>
                  setTimeout(() => document.getElementById('projects').innerHTML = '<li class="project">navwatch</li>', 200);
                </script>
                """)
        case "/report":
            return page("Report", "<script>console.error('report: no data for', 'March');</script>")
        case "/settings":
            return page("Settings", """
                <script>
                  const settings = undefined;
                  document.body.className = settings.theme;
                </script>
                """)
        case "/gallery":
            return page("Gallery", "<img src=\"/photos/missing.jpg\" alt=\"A missing photo\">")
        default:
            return .html("<title>Not found</title>", status: 404)
        }
    }

    private static func page(_ title: String, _ body: String) -> LoopbackResponse {
        .html("<!doctype html><html><head><title>\(title)</title></head><body>\(body)</body></html>")
    }
}
