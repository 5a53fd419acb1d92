// The getting-started example of NavWatchRx.docc: watch one page load with
// `for await`. `swift run ForAwaitExample https://example.org/old-page`
import Foundation
import NavWatchRx

let url = URL(string: CommandLine.arguments.dropFirst().first ?? "https://example.org/")!

try await Task { @WebKitActor in
    let view = try WebView()
    defer { view.close() }

    let events = view.rx.navigationEvents        // subscribed now: nothing is missed
    try view.load(url)

    for await event in events {
        print(event)                               // started, redirected, committed, ...
        if event.isTerminal { break }              // finish, or a failure as a value
    }

    // Or, in one call: the outcome, with the response and the title when it finished.
    let outcome = try await view.rx.pageLoad(url.appendingPathComponent("missing"))
    print(outcome)
}.value
