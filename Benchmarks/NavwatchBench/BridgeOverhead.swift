import ArgumentParser
import CNavShim
import Foundation
import NavWatch
import NavWatchRx
import WebKitThread

/// The time from a WebKit signal reaching the shim to a Swift subscriber of
/// `rx.navigationEvents` (iterating on the global executor, not the WebKit
/// thread) receiving the event it became: p50 and p99 over `--events` events.
struct BridgeOverhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bridge")

    @Option(help: "Navigation events to time (three per page load: start, commit, finish).")
    var events = 10_000

    func run() async throws {
        let loads = (events + 2) / 3
        let signals = SignalLog()
        let (finished, finishedContinuation) = AsyncStream<Void>.makeStream()

        let view = try await Task { @WebKitActor in try WebView() }.value
        _ = try await Task { @WebKitActor in try await view.rx.pageLoad(URL(string: "about:blank")!) }.value
        let subscription = await Task { @WebKitActor in
            WebView.signalProbe = { event, time in signals.append(event, time) }
            return view.rx.navigationEvents
        }.value

        let receiver = Task.detached {
            var received: [(NavigationEvent, UInt64)] = []
            received.reserveCapacity(loads * 3)
            for await event in subscription {
                received.append((event, nw_monotonic_ns()))
                if case .didFinish = event {
                    finishedContinuation.yield()
                    if received.count >= loads * 3 { break }
                }
            }
            return received
        }

        var finishes = finished.makeAsyncIterator()
        for index in 0..<loads {
            try await Task { @WebKitActor in _ = try view.loadHTML("<title>\(index)</title><p>\(index)</p>") }.value
            await finishes.next()
        }
        let received = await receiver.value
        let sent = await Task { @WebKitActor in
            WebView.signalProbe = nil
            view.close()
            return signals.entries
        }.value

        guard sent.count == received.count else {
            throw ValidationError("\(sent.count) signals but \(received.count) events received")
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(sent.count)
        for (signal, event) in zip(sent, received) {
            guard signal.0 == event.0 else { throw ValidationError("events out of order: \(signal.0) vs \(event.0)") }
            latencies.append(Double(event.1 - signal.1) / 1000)
        }
        latencies.sort()
        let result: [String: Double] = [
            "events": Double(latencies.count),
            "p50_us": percentile(latencies, 0.50),
            "p99_us": percentile(latencies, 0.99),
            "max_us": latencies.last ?? 0,
        ]
        try printJSON(result)
    }
}

/// The probe's record, written on the WebKit thread only.
private final class SignalLog: @unchecked Sendable {
    private(set) var entries: [(NavigationEvent, UInt64)] = []

    func append(_ event: NavigationEvent, _ time: UInt64) {
        entries.append((event, time))
    }
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
