import ArgumentParser
import Foundation
import NavWatchReports
import Glibc
import NavWatch
import NavWatchCrawler
import Synchronization
import WebKitThread
import LoopbackServer

/// `navwatch crawl URL...`: crawl a site and write one report per page.
package struct CrawlCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "crawl",
        abstract: "Crawl from the seed URLs breadth-first and write one JSON report per page.",
        discussion: """
            Reports stream as JSON Lines to standard output (or --out) and are kept, with the frontier, \
            in a crawl database (--db): a SQLite file, so that --resume can continue an interrupted crawl, \
            or a PostgreSQL database (postgres://user@host/db, PG* variables fill in the rest) that \
            workers on other machines join with --worker. A progress line and the closing summary go \
            to standard error.
            """)

    @Argument(help: "The seed URLs; a URL without a scheme gets https://.")
    package var seeds: [String] = []

    @Option(name: .long, help: "The crawl database: a SQLite file or a postgres:// address.")
    package var db = "navwatch-crawl.db"

    @Flag(name: .long, help: "Serve the built-in demo site on 127.0.0.1 and crawl it.")
    package var demo = false

    @Flag(name: .long, help: "Continue the crawl in --db instead of starting a new one.")
    package var resume = false

    @Flag(name: .long, help: "Join the crawl in a postgres:// --db as one more worker; the crawl's settings apply.")
    package var worker = false

    @Option(name: .long, help: "Seconds a worker's claim on a page lasts unless renewed; a dead worker's pages return after it.")
    package var lease: Double = 30

    @Option(name: .long, help: "Append the reports to this file instead of standard output.")
    package var out: String?

    @Option(name: .long, help: "Which links to follow: same-origin, same-host, same-domain or any.")
    package var scope: ScopeArgument = .init(argument: "same-origin")!

    @Option(name: .long, help: "Follow only links matching this regular expression (repeatable).")
    package var include: [String] = []

    @Option(name: .long, help: "Do not follow links matching this regular expression (repeatable).")
    package var exclude: [String] = []

    @Option(name: .customLong("max-depth"), help: "Follow links at most this many clicks from a seed.")
    package var maxDepth: Int?

    @Option(name: .customLong("max-pages"), help: "Load at most this many pages.")
    package var maxPages: Int?

    @Option(name: .long, help: "Web views loading at once, each with its own web process.")
    package var concurrency = 2

    @Option(name: .long, help: "Seconds a page may take before it times out.")
    package var timeout: Double = 30

    @Option(name: .long, help: ArgumentHelp(
        "Milliseconds with no network activity of a finished page before its report closes (at least this long after its finish; "
            + "default \(Int(RenderMode.always.defaultSettle.milliseconds)), "
            + "\(Int(RenderMode.auto.defaultSettle.milliseconds)) with --fast or --render auto).",
        valueName: "ms"))
    package var settle: Int?

    @Option(name: .long, help: "Milliseconds between two requests to the same host (default 0).")
    package var delay: Int?

    @Option(name: .customLong("host-concurrency"),
            help: "Pages and link checks in flight at once per host, across all workers (default: no limit but --concurrency).")
    package var hostConcurrency: Int?

    @Flag(name: .customLong("ignore-robots"), help: "Do not fetch or obey robots.txt.")
    package var ignoreRobots = false

    @Option(name: .long, help: "Extra attempts for timeouts, resets, crashes, 5xx and 429.")
    package var retries = 2

    @Option(name: .customLong("recycle-after"), help: "Pages a view loads before a fresh one replaces it.")
    package var recycleAfter = 1000

    @Option(name: .customLong("user-agent"), help: "The User-Agent to send.")
    package var userAgent: String?

    @OptionGroup package var emulation: EmulationOptions

    @Flag(name: .customLong("ignore-tls-errors"), help: "Load pages whose certificate does not validate.")
    package var ignoreTLSErrors = false

    @Flag(name: .customLong("no-sandbox"), help: "Run the web processes without their bubblewrap sandbox.")
    package var noSandbox = false

    @Option(name: .customLong("memory-limit"), help: MemoryLimitArgument.help)
    package var memoryLimit = WebViewConfiguration.defaultWebProcessMemoryLimit

    @Flag(name: .customLong("allow-private"),
          help: "Let pages reach loopback, private and link-local addresses of hosts other than the seeds'.")
    package var allowPrivate = false

    @Option(name: .long, help: ArgumentHelp(
        "Which pages to render: always, auto (only where scripts could change links, ids or titles), or never.",
        discussion: "With auto, every page is fetched and parsed, pages with no scripts are never rendered, and pages "
            + "with scripts are rendered until renders of their kind (the same scripts) agree with their HTML; each "
            + "report says which path made it (rendered, render_reason).",
        valueName: "mode"))
    package var render: RenderModeArgument?

    @Flag(name: .long, help: "The link checker's mode: the same as --render auto.")
    package var fast = false

    @Option(name: .customLong("read-concurrency"),
            help: ArgumentHelp("Pages fetched and parsed at once with --render auto or never (default 8).", valueName: "n"))
    package var readConcurrency: Int?

    @Option(name: .long, help: "Save a PNG of each finished page's viewport in this directory (created if missing).")
    package var screenshots: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Crawl the routes of single-page apps: click up to 20 buttons and other clickable elements per page (each once per crawl).",
        discussion: "A route a click reaches in the page (pushState, a hash route) is loaded directly too: one that fails "
            + "or shows another title then is a problem (route-not-loadable, route-differs). A click never loads another "
            + "page, submits a form or starts a download; where it would lead is recorded as a link."))
    package var routes = false

    @Option(name: .long, help: NetworkArgument.help, transform: NetworkArgument.init(argument:))
    package var network: NetworkArgument?

    @Option(name: .long, help: ArgumentHelp(
        "Load each rendered page this many times (default 1) and report the median and spread of its timings.",
        discussion: "Above 1, views keep no memory cache, and the further loads come after the crawl, in rounds, "
            + "so that two loads of a page are never back to back. Budgets are checked on the medians; "
            + "navwatch diff tests whether pages got slower.", valueName: "n"))
    package var runs = 1

    @Flag(name: .customLong("check-external"),
          help: "Check links that leave the scope with a plain HTTP request (HEAD, then GET) instead of skipping them.")
    package var checkExternal = false

    @Option(name: .customLong("recheck-after"), help: ArgumentHelp(
        "With --check-external, do not check again a link that answered below 400 within this time (90s, 15m, 12h, 7d): "
            + "its answer is kept in --link-cache, or in the --baseline.", valueName: "duration"))
    package var recheckAfter: DurationArgument?

    @Option(name: .customLong("link-cache"), help: ArgumentHelp("The file --recheck-after keeps answers in (SQLite).",
                                                                 valueName: "file"))
    package var linkCache = "navwatch-link-cache.db"

    @Option(name: .customLong("external-delay"), help: "Milliseconds between two checks of links on the same other site (default 1000).")
    package var externalDelay: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Also crawl the pages of this sitemap (or sitemap index, gzip too); auto: the Sitemap: lines of robots.txt.",
        valueName: "url|auto"))
    package var sitemap: String?

    @Option(name: .customLong("fail-on"), help: ArgumentHelp(
        "Exit 1 after the crawl when it found any of these (comma-separated): broken, external, fragments, text-fragments, routes, orphans, budgets.",
        valueName: "list"), transform: FailOn.init(argument:))
    package var failOn: FailOn?

    @Option(name: .long, help: ArgumentHelp("Check every page against the limits of this budget file (TOML; see navwatch budgets --help).",
                                            valueName: "file"))
    package var budgets: String?

    @Option(name: .long, help: ArgumentHelp(
        "A crawl database to compare with: --fail-on fails only on problems it does not have, and the summary counts new, known and fixed problems.",
        valueName: "db"))
    package var baseline: String?

    @Option(name: .long, help: ArgumentHelp(
        "Run this JavaScript on each loaded page as the body of an async function (it may await); "
            + "what it returns (JSON) is stored as the page's data. A throw or a timeout is the page's handler_error.",
        valueName: "file.js"))
    package var extract: String?

    @Option(name: .customLong("extract-timeout"), help: "Seconds the --extract script may run on one page (default 30).")
    package var extractTimeout: Double?

    @OptionGroup package var policyOptions: PolicyOptions

    package init() {}

    package func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        try DurationArgument.validateWait(timeout, option: "--timeout")
        if let delay, delay < 0 { throw ValidationError("--delay must be 0 or more milliseconds") }
        if let hostConcurrency, hostConcurrency < 1 { throw ValidationError("--host-concurrency must be at least 1") }
        try RunsArgument.validate(runs: runs, settle: settle ?? 0)
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        try MemoryLimitArgument.validate(memoryLimit)
        guard recycleAfter >= 1 else { throw ValidationError("--recycle-after must be at least 1") }
        if let maxDepth, maxDepth < 0 { throw ValidationError("--max-depth must be 0 or more") }
        if recheckAfter != nil && !checkExternal { throw ValidationError("--recheck-after needs --check-external") }
        if let externalDelay, externalDelay < 0 { throw ValidationError("--external-delay must be 0 or more milliseconds") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        if let readConcurrency, readConcurrency < 1 { throw ValidationError("--read-concurrency must be at least 1") }
        if let mode = unrenderedMode {
            if extract != nil { throw ValidationError("--extract runs on rendered pages: it cannot be combined with \(mode)") }
            if screenshots != nil { throw ValidationError("--screenshots needs rendered pages: it cannot be combined with \(mode)") }
            if network != nil { throw ValidationError("--network shapes rendered pages: it cannot be combined with \(mode)") }
            if runs > 1 { throw ValidationError("--runs repeats rendered pages: it cannot be combined with \(mode)") }
        }
        if fast, let render, render.value != .auto {
            throw ValidationError("--fast is --render auto: it cannot be combined with --render \(render.value.rawValue)")
        }
        if let extractTimeout { try DurationArgument.validateWait(extractTimeout, option: "--extract-timeout") }
        if extractTimeout != nil && extract == nil { throw ValidationError("--extract-timeout needs --extract") }
        guard lease >= 1, lease <= DurationArgument.longestWait else {
            throw ValidationError("--lease must be from 1 to 86400 seconds (a day)")
        }
        if worker && resume { throw ValidationError("--worker and --resume cannot be combined: a worker always continues") }
        if worker && demo { throw ValidationError("--worker cannot be combined with --demo") }
        if worker && !seeds.isEmpty { throw ValidationError("--worker takes no seed URLs: the crawl has its own") }
        for pattern in include + exclude {
            do { _ = try NSRegularExpression(pattern: pattern) } catch {
                throw ValidationError("\"\(pattern)\" is not a valid regular expression")
            }
        }
    }

    /// The flag that keeps pages from being rendered, as the user wrote it
    /// (`--fast`, `--render auto`, `--render never`); nil when every page is rendered.
    private var unrenderedMode: String? {
        if fast { return "--fast" }
        guard let render, render.value != .always else { return nil }
        return "--render \(render.value.rawValue)"
    }

    /// Where `Scripts/bench` asks for the crawl's CPU counters: one JSON
    /// object, `{"store_cpu_seconds": ...}` (null when the store does not
    /// count), written when the crawl ends.
    static let cpuCountersVariable = "NAVWATCH_CPU_COUNTERS"

    private static func writeCPUCounters(_ store: any CrawlStore) {
        guard let path = ProcessInfo.processInfo.environment[cpuCountersVariable], !path.isEmpty else { return }
        let seconds = store.databaseCPUSeconds.map { String(format: "%.3f", $0) } ?? "null"
        _ = FileManager.default.createFile(atPath: path, contents: Data("{\"store_cpu_seconds\": \(seconds)}\n".utf8))
    }

    package func run() async throws {
        guard demo else { return try await crawl(seeds) }
        guard seeds.isEmpty else { throw InputError("--demo takes no seed URLs") }
        let server = try await LoopbackServer.start(route: DemoSite.route)
        defer { Task { await server.shutdown() } }
        try await crawl([server.url("/").absoluteString])
    }

    private func crawl(_ seeds: [String]) async throws {
        guard !seeds.isEmpty || resume || worker else { throw InputError("give at least one seed URL, or --resume") }
        let urls = try seeds.map { text throws(InputError) in try URLArgument.parse(text) }
        for url in urls where url.scheme != "http" && url.scheme != "https" {
            throw InputError("cannot crawl \(url.absoluteString): only http and https seeds can be crawled")
        }
        let policy = try policyOptions.policy()
        // Checked as `--network` is in `validate()`, before any file is opened.
        if network == nil, policy.network != nil, let mode = unrenderedMode {
            throw InputError("[network] profile of the policy file shapes rendered pages: it cannot be combined with \(mode)")
        }
        let budgetFile = try budgets.map { path throws(InputError) in try BudgetFile.read(path) } ?? policy.budgets
        if failOn?.findings.contains(.budgets) == true, budgetFile == nil {
            throw InputError("--fail-on budgets needs --budgets FILE, or [[budget]] tables in the policy file")
        }
        // Read before any page is loaded, so that a bad baseline stops the crawl before it starts.
        var baselineProblems: CrawlProblems?
        var recentChecks = recheckAfter.map { RecentChecks(maxAge: $0.seconds) }
        if let baseline {
            let (reports, links) = try await CrawlDatabase.read(baseline, policy: policy.links)
            baselineProblems = CrawlProblems(links: links, reports: reports, budgets: budgetFile, policy: policy.links)
            recentChecks?.add(reports)
        }
        do { try recentChecks?.read(linkCache) } catch {
            throw InputError("cannot read the link cache \(linkCache): \(InputError.reason(error))")
        }
        var extractScript: ExtractScript?
        if let extract { extractScript = try await ExtractScript.load(extract) }
        try await CrawlDatabase.with(db) { store in
            try await crawl(urls, in: store, policy: policy, budgetFile: budgetFile, baseline: baselineProblems,
                            recentChecks: recentChecks, extract: extractScript)
        }
    }

    private func crawl(_ urls: [URL], in store: any CrawlStore, policy: PolicyFile, budgetFile: BudgetFile?,
                       baseline: CrawlProblems?, recentChecks: RecentChecks?, extract: ExtractScript?) async throws {
        let counts = try await store.counts()
        let shownDB = CrawlDatabase.shown(db)
        let holdsCrawl = try await store.holdsCrawl()
        if worker {
            guard store.isShared else { throw InputError("--worker needs a shared database: --db postgres://...") }
            guard holdsCrawl else {
                throw InputError("\(shownDB) holds no crawl to join: start one with navwatch crawl URL --db \(shownDB)")
            }
        } else if !resume && holdsCrawl {
            let hint = store.isShared ? "add --worker to join it" : "add --resume to continue it"
            throw InputError("\(shownDB) already holds a crawl: \(hint), or choose another --db")
        }
        let output: ReportOutput
        do { output = try ReportOutput(path: out) } catch {
            throw InputError("cannot write \(out ?? "-"): \(InputError.reason(error))")
        }
        let screenshotDirectory = try screenshots.map { path throws(InputError) in
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw InputError("cannot create the screenshot directory \(path): \(InputError.reason(error))")
            }
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw InputError("cannot write screenshots in \(path)")
            }
            return URL(fileURLWithPath: path)
        }

        var configuration = CrawlConfiguration(seeds: urls)
        configuration.scope = scope.value
        configuration.include = include
        configuration.exclude = exclude
        configuration.ignore = policy.ignore
        configuration.remaps = policy.remaps
        configuration.maxDepth = maxDepth
        configuration.maxPages = maxPages
        configuration.concurrency = concurrency
        configuration.timeout = .milliseconds(Int64(timeout * 1000))
        // A flag wins over the policy file, which wins over the configuration's default.
        if let delay = delay ?? policy.delayMs { configuration.delay = .milliseconds(delay) }
        configuration.obeyRobots = !ignoreRobots
        configuration.retries = retries
        configuration.recycleAfter = recycleAfter
        configuration.screenshotDirectory = screenshotDirectory
        configuration.leaseDuration = .milliseconds(Int64(lease * 1000))
        configuration.checkExternal = checkExternal
        configuration.routeClicks = routes ? CrawlConfiguration.defaultRouteClicks : nil
        configuration.network = network?.profile ?? policy.network
        configuration.runs = runs
        configuration.render = render?.value ?? (fast ? .auto : .always)
        configuration.settle = settle.map { .milliseconds($0) } ?? configuration.render.defaultSettle
        if let readConcurrency { configuration.readConcurrency = readConcurrency }
        configuration.allowPrivateAddresses = allowPrivate
        if let externalDelay = externalDelay ?? policy.externalDelayMs { configuration.externalDelay = .milliseconds(externalDelay) }
        configuration.hostConcurrency = hostConcurrency ?? policy.hostConcurrency
        configuration.recentChecks = recentChecks
        configuration.pageHandler = extract?.handler
        if let extractTimeout { configuration.pageHandlerTimeout = .milliseconds(Int64(extractTimeout * 1000)) }
        configuration.sitemap = try sitemap.map { text throws(InputError) in
            text == "auto" ? .auto : .url(try URLArgument.parse(text))
        }
        configuration.webView = emulation.applied(to: WebViewConfiguration(
            userAgent: userAgent, tlsErrors: ignoreTLSErrors ? .ignore : .fail, navigationTimeout: configuration.timeout,
            sandboxed: !noSandbox, webProcessMemoryLimit: memoryLimit))

        let progress = CrawlProgress(maxPages: maxPages, before: counts)
        let crawler = try Crawler(configuration: configuration, store: store)
        await crawler.setRepeatProgressHook { progress.repeated($0, of: $1) }
        // Every report is stored in one transaction, so Ctrl-C can end the
        // process at once and --resume continues from there.
        let interruption = InterruptHandler { Glibc.exit(130) }
        let seedKeys = Set(urls.compactMap { URLCanonicalizer.canonical($0)?.absoluteString })
        let seedReportsSeen = Mutex<[PageLoadReport]>([])
        // With --runs, a page's report is final once its runs are done, after
        // the crawl: the reports are written then, in the order stored.
        let repeated = runs > 1
        let reportedURLs = Mutex<Set<String>>([])
        let summary: CrawlSummary
        do {
            summary = try await crawler.run { report in
                if repeated { reportedURLs.withLock { _ = $0.insert(report.url) } } else { output.write(report) }
                progress.record(report)
                if seedKeys.contains(report.url) { seedReportsSeen.withLock { $0.append(report) } }
            }
        } catch let error as WebKitUnavailableError {
            throw InputError(error.description)
        } catch let error as CrawlError {
            throw InputError(error.description)
        }
        if repeated {
            let urls = reportedURLs.withLock { $0 }
            for try await report in store.storedReports(includingRequests: false) where urls.contains(report.url) {
                output.write(report)
            }
        }
        withExtendedLifetime(interruption) {}
        progress.finish()
        Self.tell(CrawlSummaryText(summary).lines)
        let (reports, storedSummary, linkReports) = try await Self.storedReports(store)
        let links = LinkCheckResult(graph: try await store.linkGraph(), reports: linkReports, policy: policy.links)
        try await closingSummary(reports, links, store: store, recentChecks: recentChecks)
        if extract != nil, let hint = Self.extractHint(reports) { Self.tell([hint]) }
        Self.writeCPUCounters(store)
        let seedReports = seedReportsSeen.withLock { $0 }
        if !resume, !worker, !seedReports.isEmpty, !seedReports.contains(where: \.wasAnswered) {
            let first = seedReports[0]
            throw InputError("no seed could be loaded: \(first.url): \(first.error?.message ?? first.outcome.rawValue)")
        }
        try failIfAsked(reports, storedSummary, links, policy: policy, budgetFile: budgetFile, baseline: baseline)
    }

    /// The crawl's stored reports, read once, a batch at a time, for the
    /// closing summary: those that are not `skipped`, for the link cache,
    /// the budgets, the problems and the `--extract` hint (a skipped report
    /// has no status, check, page or data for them); the summary of them all;
    /// and what the link check needs of each. A page can have a skipped
    /// report per link, and a report is over a kilobyte.
    private static func storedReports(_ store: any CrawlStore) async throws
        -> (notSkipped: [PageLoadReport], summary: CrawlSummary, links: LinkCheckReports) {
        var notSkipped: [PageLoadReport] = [], summary = CrawlSummary(), links = LinkCheckReports()
        for try await report in store.storedReports(includingRequests: false) {
            summary.add(report)
            links.add(report)
            if report.outcome != .skipped { notSkipped.append(report) }
        }
        return (notSkipped, summary, links)
    }

    /// One line when the `--extract` script gave no value on any page it ran
    /// on without an error: a script written as an expression (`({h1: …})`)
    /// instead of a function's body gives `undefined` everywhere.
    static func extractHint(_ reports: some Sequence<PageLoadReport>) -> String? {
        let ran = reports.filter { $0.wasLoaded && $0.handlerError == nil }
        func gaveValue(_ report: PageLoadReport) -> Bool {
            switch report.data {
            case nil, .undefined?, .null?: return false
            default: return true
            }
        }
        guard !ran.isEmpty, !ran.contains(where: gaveValue) else { return nil }
        return "  extract: the script returned nothing on any of \(ran.count) page\(ran.count == 1 ? "" : "s"); "
            + "it is the body of a function: end it with return (return {h1: …}, not ({h1: …}))"
    }

    /// Writes lines of the closing summary to standard error, each inert and
    /// ended by a line break: they quote pages' URLs and servers' words.
    private static func tell(_ lines: [String]) {
        FileHandle.standardError.write(Data(TerminalText.lines(lines).utf8))
    }

    /// The summary's lines on links, the link cache and the hosts that pushed back.
    private func closingSummary(_ reports: some Sequence<PageLoadReport>, _ links: LinkCheckResult, store: any CrawlStore,
                                recentChecks: RecentChecks?) async throws {
        Self.tell(LinkSummaryText(links, db: CrawlDatabase.shown(db)).lines)
        if var recentChecks, let recheckAfter {
            let cached = reports.filter { $0.checkedWith == .cache }.count
            Self.tell(["  links answered from the cache (checked within \(recheckAfter)): \(cached)"])
            recentChecks.add(reports)
            do { try recentChecks.write(linkCache) } catch {
                throw InputError("cannot write the link cache \(linkCache): \(InputError.reason(error))")
            }
        }
        Self.tell(HostSummaryText(try await store.hostStatistics()).lines)
    }

    /// The budgets' and the baseline's lines of the summary, the job summary
    /// of a GitHub Actions run, and exit status 1 when `--fail-on` finds an
    /// error among the problems (the new ones, against a baseline); from the
    /// reports that are not skipped and the summary of them all.
    private func failIfAsked(_ reports: some Sequence<PageLoadReport>, _ summary: CrawlSummary, _ links: LinkCheckResult,
                             policy: PolicyFile, budgetFile: BudgetFile?, baseline: CrawlProblems?) throws {
        let shownDB = CrawlDatabase.shown(db)
        let budgetListing = budgetFile.map { BudgetListing(reports, budgets: $0, policy: policy.links) }
        if let budgetListing {
            var lines = ["  budgets: \(budgetListing.summary)"]
            if !budgetListing.breaches.isEmpty {
                lines.append("  see: navwatch budgets --db \(shownDB)" + (budgets.map { " --budgets \($0)" } ?? ""))
            }
            Self.tell(lines)
        }
        var problems = CrawlProblems(links: links, reports: reports, budgets: budgetFile, policy: policy.links).found
        var stepSummary = StepSummary(summary: summary, links: links, problems: problems, budgets: budgetListing, db: shownDB)
        if let baseline, let baselineDB = self.baseline {
            let compared = CrawlProblems(problems).compared(with: baseline)
            Self.tell(BaselineSummaryText(compared, baseline: CrawlDatabase.shown(baselineDB)).lines)
            problems = compared.new
            stepSummary.problems = problems
            stepSummary.baseline = (CrawlDatabase.shown(baselineDB), compared.known.count, compared.fixed)
        }
        stepSummary.append()
        if let failOn, failOn.isMet(by: problems.filter { $0.severity == .error }) {
            Self.tell(["navwatch: failing (--fail-on \(failOn.description))"])
            throw ExitCode(1)
        }
    }
}
