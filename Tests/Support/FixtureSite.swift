import LoopbackServer

/// A site with one route per navigation case the tests check: a plain page,
/// redirect chains and loops, HTTP errors, a server that hangs, a page whose
/// script never returns, a reset after the headers, dialogs, a download, same-document changes and
/// `window.open`. Shared by the tests of every layer.
package enum FixtureSite {
    package static let route: LoopbackServer.Route = { request in
        let path = request.path
        switch path {
        case "/page":
            return .html("<html><head><title>Plain</title></head><body><p>plain</p></body></html>")
        case "/redirect/1": return .redirect(to: "/page")
        case "/redirect/2": return .redirect(to: "/redirect/1", status: 301)
        case "/redirect/3": return .redirect(to: "/redirect/2", status: 307)
        case "/loop": return .redirect(to: "/loop")
        case "/rich":
            return .html("""
                <html><head><title>Rich</title><link rel="stylesheet" href="/rich.css">
                <script src="/rich.js"></script></head>
                <body><img src="/redirect/image"><img src="/missing.svg"><p>rich</p></body></html>
                """)
        case "/rich.css": return .text("p { color: teal; }", contentType: "text/css")
        case "/rich.js": return .text("document.documentElement.dataset.rich = 'yes';", contentType: "text/javascript")
        case "/redirect/image": return .redirect(to: "/image.svg")
        case "/image.svg":
            return .text(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>"#,
                         contentType: "image/svg+xml", headers: [("Cache-Control", "no-store")])
        case "/script-title":
            return .html("<html><head><script>document.title = 'Scripted'</script></head><body>s</body></html>")
        case "/no-title": return .html("<html><body>untitled</body></html>")
        case "/status/404": return .html("<title>Missing</title>", status: 404)
        case "/status/500": return .html("<title>Broken</title>", status: 500)
        case "/hang": return .hang
        case "/reset": return .resetAfterHeaders
        case "/stall": return .stallAfterHeaders
        case "/slow": return .delayed(.milliseconds(300), .html("<title>Slow</title>"))
        case "/spin":  // a script that never returns: the web process stops answering
            return .html("<html><head><title>Spin</title></head><body><script>for (;;) {}</script></body></html>")
        case "/alert":
            return .html("<html><head><title>Alert</title></head><body><script>alert('hello'); confirm('sure?');</script></body></html>")
        case "/download":
            return .text("a,b\n1,2\n", contentType: "application/octet-stream",
                         headers: [("Content-Disposition", "attachment; filename=data.csv")])
        case "/push":
            return .html("""
                <html><head><title>Push</title></head><body><a id="a" href="#frag">frag</a><script>
                window.addEventListener('load', () => setTimeout(() => {
                  history.pushState({}, '', '/pushed');
                  setTimeout(() => document.getElementById('a').click(), 50);
                }, 50));
                </script></body></html>
                """)
        case "/history":  // after its load: one same-document navigation of each kind, each after the last one's URL change
            return .html("""
                <html><head><title>History</title></head><body><a id="a" href="#frag">frag</a><script>
                const steps = [
                  // A push of the URL it has changes no URL: the replace after it is a replace.
                  () => { history.pushState({}, '', location.href); history.replaceState({}, '', '/h/start'); },
                  () => history.pushState({}, '', '/h/one'),
                  () => history.replaceState({}, '', '/h/two'),
                  () => document.getElementById('a').click(),
                  () => history.back(),
                  () => history.back(),
                  () => history.forward(),
                  () => location.replace('#r'),
                ];
                const next = () => {
                  const step = steps.shift();
                  if (!step) return;
                  const before = location.href;
                  step();
                  const wait = () => location.href === before ? setTimeout(wait, 10) : setTimeout(next, 30);
                  wait();
                };
                window.addEventListener('load', () => setTimeout(next, 30));
                </script></body></html>
                """)
        case "/late-error":  // throws 200 ms after its load event
            return .html("""
                <html><head><title>Late</title></head><body><script>
                window.addEventListener('load', () => setTimeout(() => { throw new Error('late'); }, 200));
                </script></body></html>
                """)
        case "/late-requests":  // 100 ms after its load event: a fetch answered 200 ms later, and a missing image
            return .html("""
                <html><head><title>Late requests</title></head><body><script>
                window.addEventListener('load', () => setTimeout(() => {
                  fetch('/late-data');
                  new Image().src = '/late-missing.png';
                }, 100));
                </script></body></html>
                """)
        case "/late-data": return .delayed(.milliseconds(200), .text("{}", contentType: "application/json"))
        case "/window":
            return .html("<html><body><script>window.addEventListener('load', () => window.open('/page'));</script></body></html>")
        default:
            return .html("<title>Not found</title>", status: 404)
        }
    }

}
