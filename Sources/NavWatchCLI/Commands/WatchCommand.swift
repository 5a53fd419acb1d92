import ArgumentParser
import Foundation
import NavWatchReports
import LoopbackServer
import NavWatch
import NavWatchGuard
import WebKitThread

/// `navwatch URL...`: the default command.
package struct WatchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Load each URL in turn and print its navigation events (the default command).")

    @Argument(help: "The URLs to load; a URL without a scheme gets https://.")
    package var urls: [String] = []

    @Flag(name: .long, help: "Serve the built-in demo site on 127.0.0.1 and watch it.")
    package var demo = false

    @OptionGroup package var options: LoadOptions

    package init() {}

    package func run() async throws {
        if demo {
            guard urls.isEmpty else { throw InputError("--demo takes no URLs") }
            throw ExitCode(try await DemoCommand.runDemo(options: options))
        }
        guard !urls.isEmpty else {
            throw InputError("give at least one URL, or --demo (see navwatch --help)")
        }
        let parsed = try urls.map { text throws(InputError) in try URLArgument.parse(text) }
        throw ExitCode(try await watch(parsed, options: options))
    }
}

/// `navwatch demo`: serve the demo site and watch it.
package struct DemoCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a small demo site on 127.0.0.1 (a page, a redirect, a 404, a slow page) and watch it.")

    @OptionGroup package var options: LoadOptions

    package init() {}

    package func run() async throws {
        throw ExitCode(try await Self.runDemo(options: options))
    }

    /// Exits 0 when the demo ran: its 404 is there on purpose.
    static func runDemo(options: LoadOptions) async throws -> Int32 {
        let server = try await LoopbackServer.start(route: DemoSite.route)
        let status = try await watch(DemoSite.paths.map(server.url), options: options)
        await server.shutdown()
        return status == 130 ? 130 : 0
    }
}

/// Runs a `Watcher` over `urls`, printing as it goes; Ctrl-C stops it cleanly.
/// Returns the exit status.
func watch(_ urls: [URL], options: LoadOptions) async throws -> Int32 {
    let printer = EventPrinter(format: options.json ? .jsonLines : .text)
    let watcher: Watcher
    let summaries: [PageSummary]
    var watcherOptions = options.watcherOptions
    // The guard refuses private addresses (--block-private), shapes the network (--network), or both.
    let privateAddressGuard = options.blockPrivate || options.network != nil
        ? try await PrivateAddressGuard.start(allowedHosts: Set(urls.compactMap(\.host)), link: options.network?.profile.linkShape,
                                              blocksPrivateAddresses: options.blockPrivate) : nil
    watcherOptions.configuration.networkProxy = privateAddressGuard?.proxyURL
    watcherOptions.privateAddressGuard = privateAddressGuard
    do {
        defer { Task { await privateAddressGuard?.shutdown() } }
        watcher = await Watcher(options: watcherOptions, emit: { printer.print($0) }, onBlocked: { url, blocked in
            FileHandle.standardError.write(Data((
                "navwatch: " + TerminalText.inert("blocked \(url.absoluteString): \(blocked.host) is at \(blocked.address) (\(blocked.kind))") + "\n").utf8))
        })
        let interruption = InterruptHandler { Task { @WebKitActor in watcher.interrupt() } }
        // Interleaved: every URL once, then every URL again.
        summaries = try await watcher.run(Array(repeating: urls, count: options.runs).flatMap { $0 })
        if interruption.fired { return 130 }
    } catch let error as WebKitUnavailableError {
        throw InputError(error.description)
    }
    for summary in summaries { printer.printSummary(summary) }
    if options.runs > 1 {
        for url in urls { printer.printRuns(of: url, summaries.filter { $0.requested == url }) }
    }
    if let har = options.har {
        try HARWriter.write(summaries.compactMap(\.report), to: har)
    }
    return summaries.allSatisfy(\.succeeded) && summaries.count == urls.count * options.runs ? 0 : 1
}
