import ArgumentParser
import CNavShim
import Foundation
import NavWatch
import NavWatchRx
import WebKitThread

/// The time from a WebKit signal reaching the shim to a Swift subscriber of
/// `rx.navigationEvents` receiving the event it became (less the time the
/// benchmark's own probe takes to wake the baseline's thread): p50 and p99
/// over `--events` events. The subscriber iterates on the WebKit actor (as the
/// getting-started example does) or on the global executor, or is a closure
/// subscribed on the WebKit actor (`subscribe(onNext:)`).
struct BridgeOverhead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bridge")

    enum Subscriber: String, ExpressibleByArgument {
        case webkit, global, callback
    }

    @Option(help: "Navigation events to time (three per page load: start, commit, finish).")
    var events = 10_000

    @Option(help: "The subscriber: a for-await loop on webkit (the WebKit actor) or global (the global executor), or a callback subscribed on the WebKit actor.")
    var subscriber = Subscriber.webkit

    func run() async throws {
        let loads = (events + 2) / 3
        let signals = SignalLog()
        let baseline = ThreadHandoff()
        let (finished, finishedContinuation) = AsyncStream<Void>.makeStream()

        let view = try await Task { @WebKitActor in try WebView() }.value
        _ = try await Task { @WebKitActor in try await view.rx.pageLoad(URL(string: "about:blank")!) }.value
        let subscription = await Task { @WebKitActor in
            SignalProbe.onSignal = { event, time in
                // Waking the baseline's thread is the probe's own cost, not
                // the bridge's: it is timed and left out of the latency.
                let start = nw_monotonic_ns()
                baseline.post(time)
                signals.append(event, time, probeTime: nw_monotonic_ns() - start)
            }
            return view.rx.navigationEvents
        }.value

        @Sendable func receive(isolation: isolated (any Actor)? = #isolation) async -> [(NavigationEvent, UInt64)] {
            var received: [(NavigationEvent, UInt64)] = []
            received.reserveCapacity(loads * 3)
            for await event in subscription {
                assert(isolation == nil || WebKitExecutor.shared.isOnWebKitThread)
                received.append((event, nw_monotonic_ns()))
                if case .didFinish = event {
                    finishedContinuation.yield()
                    if received.count >= loads * 3 { break }
                }
            }
            return received
        }
        let receiver = switch subscriber {
        case .webkit: Task { @WebKitActor in await receive() }
        case .global: Task.detached { await receive(isolation: nil) }
        case .callback: await Task { @WebKitActor in
            // Subscribed before the first load; completes when the view closes.
            let log = CallbackLog(capacity: loads * 3)
            let (completed, completion) = AsyncStream<Void>.makeStream()
            subscription.subscribe(onNext: { event in
                log.entries.append((event, nw_monotonic_ns()))
                if case .didFinish = event { finishedContinuation.yield() }
            }, onCompleted: { completion.finish() })
            return Task { @WebKitActor in
                for await _ in completed {}
                return log.entries
            }
        }.value
        }

        var finishes = finished.makeAsyncIterator()
        for index in 0..<loads {
            try await Task { @WebKitActor in _ = try view.loadHTML("<title>\(index)</title><p>\(index)</p>") }.value
            await finishes.next()
        }
        let sent = await Task { @WebKitActor in
            SignalProbe.onSignal = nil
            view.close()
            return signals.entries
        }.value
        let received = await receiver.value

        guard sent.count == received.count else {
            throw ValidationError("\(sent.count) signals but \(received.count) events received")
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(sent.count)
        for (signal, event) in zip(sent, received) {
            guard signal.0 == event.0 else { throw ValidationError("events out of order: \(signal.0) vs \(event.0)") }
            latencies.append(Double(event.1 - signal.1 - signal.2) / 1000)
        }
        latencies.sort()
        let floor = baseline.stop().sorted()
        let result: [String: String] = [
            "subscriber": subscriber.rawValue,
            "events": String(latencies.count),
            "p50_us": String(format: "%.1f", percentile(latencies, 0.50)),
            "p99_us": String(format: "%.1f", percentile(latencies, 0.99)),
            "max_us": String(format: "%.1f", latencies.last ?? 0),
            "thread_handoff_p50_us": String(format: "%.1f", percentile(floor, 0.50)),
            "thread_handoff_p99_us": String(format: "%.1f", percentile(floor, 0.99)),
        ]
        try printJSON(result)
    }
}

/// The probe's record, written on the WebKit thread only: each event, the
/// time its signal reached the shim, and the time the probe itself took.
private final class SignalLog: @unchecked Sendable {
    private(set) var entries: [(NavigationEvent, UInt64, UInt64)] = []

    func append(_ event: NavigationEvent, _ time: UInt64, probeTime: UInt64) {
        entries.append((event, time, probeTime))
    }
}

/// The callback subscriber's record, written on the WebKit thread.
@WebKitActor
private final class CallbackLog {
    var entries: [(NavigationEvent, UInt64)] = []

    init(capacity: Int) {
        entries.reserveCapacity(capacity)
    }
}

/// The floor the bridge is measured against: the same signal times handed
/// to a plain thread blocked on a semaphore, with no Swift concurrency,
/// no delegate proxy and no stream in between.
private final class ThreadHandoff: @unchecked Sendable {
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var posted: [UInt64] = []
    private var latencies: [Double] = []
    private var stopped = false
    private var thread: Thread?

    init() {
        let thread = Thread { [self] in
            var taken = 0
            while true {
                semaphore.wait()
                let now = nw_monotonic_ns()
                lock.lock()
                if stopped { lock.unlock(); return }
                latencies.append(Double(now - posted[taken]) / 1000)
                taken += 1
                lock.unlock()
            }
        }
        self.thread = thread
        thread.start()
    }

    func post(_ signalTime: UInt64) {
        lock.lock()
        posted.append(signalTime)
        lock.unlock()
        semaphore.signal()
    }

    func stop() -> [Double] {
        lock.lock()
        stopped = true
        lock.unlock()
        semaphore.signal()
        lock.lock()
        defer { lock.unlock() }
        return latencies
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
