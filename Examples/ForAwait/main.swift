// The getting-started example of NavWatchRx.docc: watch one page load with `for await`.
import Foundation
import LoopbackServer
import NavWatchRx

// A page and a redirect to it, served on 127.0.0.1.
let server = try await LoopbackServer.start { request in
    switch request.path {
    case "/old": return .redirect(to: "/page")
    case "/page": return .html("<title>Hello</title><p>hello</p>")
    default: return .html("<title>Not found</title>", status: 404)
    }
}

try await Task { @WebKitActor in
    let view = try WebView()
    defer { view.close() }

    let events = view.rx.navigationEvents        // subscribed now: nothing is missed
    try view.load(server.url("/old"))

    for await event in events {
        print(event)
        if event.isTerminal { break }              // finish, or a failure as a value
    }

    // Or, in one call: the outcome, with the response and the title when it finished.
    let outcome = try await view.rx.pageLoad(server.url("/missing"))
    print(outcome)
}.value
