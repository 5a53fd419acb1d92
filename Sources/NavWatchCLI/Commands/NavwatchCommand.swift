import ArgumentParser
import Foundation
import NavWatchReports
import Glibc
import NavWatch
import NavWatchCrawler

/// `navwatch`: watch pages load in a real browser engine.
package struct NavwatchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "navwatch",
        abstract: "Watch pages load in WebKit and print every navigation event as it happens.",
        discussion: """
            Exit status: 0 when every navigation finished with an HTTP status below 400, \
            1 otherwise, 2 for bad input or when WebKit cannot start, 130 after Ctrl-C.
            """,
        version: navwatchVersion,
        subcommands: [WatchCommand.self, DemoCommand.self, CrawlCommand.self, StatusCommand.self, ExportCommand.self,
                      ReportCommand.self, LinksCommand.self, BudgetsCommand.self, DiffCommand.self],
        defaultSubcommand: WatchCommand.self)

    package init() {}

    /// Whether running `arguments` (the program's name left out) may start
    /// WebKit: `watch` (the default subcommand), `demo` and `crawl` may; the
    /// commands that read a crawl's database, help and the version do not.
    package static func mayStartWebKit(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }  // help
        let reading = [StatusCommand.configuration, ExportCommand.configuration, ReportCommand.configuration,
                       LinksCommand.configuration, BudgetsCommand.configuration, DiffCommand.configuration]
        let names = reading.compactMap { $0.commandName } + ["help", "--help", "-h", "--version"]
        return !names.contains(first)
    }

    /// Parses the arguments and runs the command. Errors become one line on
    /// standard error (never a stack trace); help and version go to standard output.
    package static func runAsMain(_ arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(0)
        } catch {
            if let exitCode = error as? ExitCode { Glibc.exit(exitCode.rawValue) }
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            FileHandle.standardError.write(Data((errorLine(for: error) + "\n").utf8))
            Glibc.exit(2)
        }
    }

    /// The one line, without its line break, that navwatch writes to
    /// standard error for `error` before it exits with status 2: the first
    /// line of the parser's message (not its usage), made inert.
    package static func errorLine(for error: any Error) -> String {
        let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        let line = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        return "navwatch: \(TerminalText.inert(line))"
    }
}

/// Options shared by the commands that load pages.
package struct LoadOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON Lines, one object per event, instead of columns.")
    package var json = false

    @Option(name: .long, help: "Seconds each navigation may take before it fails as a timeout.")
    package var timeout: Double = 30

    @Option(name: .customLong("wait-until"),
            help: "When a navigation counts as done: commit, finish, or idle (the finish, then --settle ms with no network activity of the page's own, as in a crawl's report).")
    package var waitUntil: WaitUntilArgument = .idle

    @Option(name: .long, help: "With --wait-until idle: milliseconds with no network activity of a finished page before it is done.")
    package var settle = Int(LateWindow.defaultSettle.milliseconds)

    @Option(name: .customLong("user-agent"), help: "The User-Agent to send.")
    package var userAgent: String?

    @OptionGroup package var emulation: EmulationOptions

    @Flag(name: .customLong("no-javascript"), help: "Do not run the pages' JavaScript.")
    package var noJavaScript = false

    @Flag(name: .customLong("no-images"), help: "Do not load images.")
    package var noImages = false

    @Flag(name: .customLong("ignore-tls-errors"), help: "Load pages whose certificate does not validate.")
    package var ignoreTLSErrors = false

    @Flag(name: .customLong("no-sandbox"), help: "Run the web process without its bubblewrap sandbox.")
    package var noSandbox = false

    @Option(name: .customLong("memory-limit"), help: MemoryLimitArgument.help)
    package var memoryLimit = WebViewConfiguration.defaultWebProcessMemoryLimit

    @Flag(name: .customLong("block-private"),
          help: "Refuse requests to loopback, private and link-local addresses of hosts other than the URLs' own.")
    package var blockPrivate = false

    @Option(name: .long, help: NetworkArgument.help, transform: NetworkArgument.init(argument:))
    package var network: NetworkArgument?

    @Option(name: .long, help: ArgumentHelp(
        "Load each URL this many times, in turn (u1, u2, u1, u2, ...), and print the median and spread of its timings.",
        discussion: "Above 1, the view keeps no memory cache, so that every load fetches what a first visit does.",
        valueName: "n"))
    package var runs = 1

    @Flag(name: .long, help: "Also print every subresource's start, finish and failure.")
    package var resources = false

    @Option(name: .long, help: "Also write every request of the loads to FILE as HAR 1.2.")
    package var har: String?

    @Option(name: .long, help: "Save a PNG of the page's viewport when it finished (FILE-1.png, FILE-2.png, ... for several URLs).")
    package var screenshot: String?

    @Flag(name: .customLong("full-page"), help: "With --screenshot, the whole page instead of the viewport.")
    package var fullPage = false

    @Option(name: .long, help: ArgumentHelp(
        "Write a trace to FILE: one HTML page with each load, a screenshot after it, the console, the page's errors and every request.",
        valueName: "FILE"))
    package var trace: String?

    package init() {}

    package func validate() throws {
        try DurationArgument.validateWait(timeout, option: "--timeout")
        try RunsArgument.validate(runs: runs, settle: settle)
        try MemoryLimitArgument.validate(memoryLimit)
        for (option, path) in [("--har", har), ("--screenshot", screenshot), ("--trace", trace)] {
            guard let path else { continue }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: directory) else {
                throw ValidationError("\(option) \(path): cannot write in \(directory)")
            }
        }
    }

    var watcherOptions: Watcher.Options {
        var options = Watcher.Options()
        options.timeout = .milliseconds(Int64(timeout * 1000))
        options.waitUntil = waitUntil.value
        options.settle = .milliseconds(settle)
        options.resources = resources
        options.recordRequests = har != nil
        options.screenshot = screenshot
        options.fullPageScreenshot = fullPage
        options.trace = trace
        options.configuration = emulation.applied(to: WebViewConfiguration(
            userAgent: userAgent, javaScriptEnabled: !noJavaScript, imagesEnabled: !noImages,
            tlsErrors: ignoreTLSErrors ? .ignore : .fail, navigationTimeout: options.timeout,
            sandboxed: !noSandbox, memoryCache: RepeatedRuns.keepsMemoryCache(runs: runs), webProcessMemoryLimit: memoryLimit))
        options.network = network?.profile
        return options
    }
}
