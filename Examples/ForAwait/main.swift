// The README's example: watch one page load with `for await`.
import LoopbackServer
import NavWatch
import NavWatchRx
import WebKitThread

let server = try await LoopbackServer.start(route: FixtureSite.route)

try await Task { @WebKitActor in
    let view = try WebView()
    defer { view.close() }

    let events = view.rx.navigationEvents        // subscribed now: nothing is missed
    try view.load(server.url("/redirect/1"))

    for await event in events {
        print(event)
        if event.isTerminal { break }              // finish, or a failure as a value
    }

    // Or, in one call:
    let outcome = try await view.rx.pageLoad(server.url("/status/404"))
    print(outcome)
}.value
