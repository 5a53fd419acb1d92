import ArgumentParser
import Foundation
import LoopbackServer

/// `navwatch URL...`: the default command.
public struct WatchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Load each URL in turn and print its navigation events (the default command).")

    @Argument(help: "The URLs to load; a URL without a scheme gets https://.")
    public var urls: [String] = []

    @Flag(name: .long, help: "Serve the built-in demo site on 127.0.0.1 and watch it.")
    public var demo = false

    @OptionGroup public var options: LoadOptions

    public init() {}

    public func run() async throws {
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
public struct DemoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a small demo site on 127.0.0.1 (a page, a redirect, a 404, a slow page) and watch it.")

    @OptionGroup public var options: LoadOptions

    public init() {}

    public func run() async throws {
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

