import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

private let http = Task { try await LoopbackServer.start(route: FixtureSite.route) }
private let https = Task { try await LoopbackServer.start(tls: .loopbackTest, route: FixtureSite.route) }

/// Checks the summarised events, showing the actual lines when they differ.
private func expectEvents(_ lines: [String], base: URL?, _ expected: [String],
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
    let actual = try summarise(lines, base: base)
    #expect(actual == expected, "actual: \(actual)", sourceLocation: sourceLocation)
}

/// The keys the `--json` schema allows (NavWatchCLI.docc/CommandLine.md).
private let schemaKeys: Set<String> = ["event", "nav", "url", "t_ms", "status", "mime", "title", "provisional", "error",
                                       "level", "type", "message", "answer", "text", "line", "column", "kind"]

/// Parses JSON Lines output into one compact string per event:
/// `event #nav url [status] [mime] [title] [provisional] [error kind]`,
/// with the server's base URL cut off; checks every line's keys and types.
private func summarise(_ lines: [String], base: URL?) throws -> [String] {
    try lines.map { line in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSubset(of: schemaKeys), "unexpected keys in \(line)")
        #expect(object["t_ms"] is NSNumber, "t_ms is not a number in \(line)")
        #expect(object["nav"] is NSNumber)
        var parts = ["\(object["event"]!)", "#\(object["nav"]!)"]
        var url = object["url"] as? String ?? "?"
        if let base { url = url.replacingOccurrences(of: base.absoluteString, with: "") }
        parts.append(url)
        if let kind = object["kind"] { parts.append("\(kind)") }
        if let status = object["status"] { parts.append("\(status)") }
        if let mime = object["mime"] { parts.append("\(mime)") }
        if let title = object["title"] { parts.append("\"\(title)\"") }
        if let line = object["line"] { parts[parts.count - 1] += ":\(line)" }
        if let level = object["level"] { parts.append("\(level)") }
        if let type = object["type"] { parts.append("\(type)") }
        if let message = object["message"] { parts.append("\"\(message)\"") }
        if let answer = object["answer"] { parts.append("\(answer)") }
        if let text = object["text"] { parts.append("\"\(text)\"") }
        if let provisional = object["provisional"] as? Bool { parts.append(provisional ? "provisional" : "committed") }
        if let error = object["error"] as? [String: Any] {
            #expect(Set(error.keys) == ["kind", "domain", "code", "message"])
            parts.append("\(error["kind"]!)")
        }
        return parts.joined(separator: " ")
    }
}

/// Serialized: each case starts a navwatch process with its own Xvfb, web
/// and network processes; running them all at once on two cores would
/// measure the machine's load instead of navwatch.
@Suite("navwatch end to end", .serialized)
struct NavwatchEndToEndTests {
    @Test("a plain page: started, committed, finished with its title; exit 0")
    func plainPage() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/page").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /page", "committed #1 /page 200 text/html", "finished #1 /page 200 text/html \"Plain\""])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    @Test("a redirect chain reports every hop")
    func redirects() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/redirect/3").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /redirect/3", "redirected #1 /redirect/2", "redirected #1 /redirect/1", "redirected #1 /page",
            "committed #1 /page 200 text/html", "finished #1 /page 200 text/html \"Plain\""])
        #expect(result.status == 0)
    }

    @Test("404 and 500 finish, and make the exit status 1", arguments: [404, 500])
    func httpErrors(status: Int) async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/page").absoluteString,
                                                    server.url("/status/\(status)").absoluteString])
        let title = status == 404 ? "Missing" : "Broken"
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /page", "committed #1 /page 200 text/html", "finished #1 /page 200 text/html \"Plain\"",
            "started #2 /status/\(status)", "committed #2 /status/\(status) \(status) text/html",
            "finished #2 /status/\(status) \(status) text/html \"\(title)\""])
        #expect(result.status == 1)
    }

    @Test("network failures end in one failed line with their kind; exit 1", arguments: [
        ("http://no-such-host.invalid/", "dns"),
        ("http://127.0.0.1:1/", "blocked-port"),
    ])
    func networkFailures(url: String, kind: String) async throws {
        let result = try await NavwatchProcess.run(["--json", url])
        try expectEvents(result.stdout, base: nil, ["started #1 \(url)", "failed #1 \(url) provisional \(kind)"])
        #expect(result.status == 1)
    }

    @Test("a refused connection fails with connection-refused")
    func refused() async throws {
        let refusing = try RefusingPort()
        let url = refusing.url
        let result = try await NavwatchProcess.run(["--json", url])
        try expectEvents(result.stdout, base: nil, ["started #1 \(url)", "failed #1 \(url) provisional connection-refused"])
        withExtendedLifetime(refusing) {}  // the port stays taken until here
    }

    @Test("a self-signed certificate fails with tls, and loads with --ignore-tls-errors")
    func tls() async throws {
        let server = try await https.value
        let failing = try await NavwatchProcess.run(["--json", server.url("/page").absoluteString])
        try expectEvents(failing.stdout, base: server.baseURL, ["started #1 /page", "failed #1 /page provisional tls"])
        #expect(failing.status == 1)
        let ignoring = try await NavwatchProcess.run(["--json", "--ignore-tls-errors", server.url("/page").absoluteString])
        try expectEvents(ignoring.stdout, base: server.baseURL, [
            "started #1 /page", "committed #1 /page 200 text/html", "finished #1 /page 200 text/html \"Plain\""])
        #expect(ignoring.status == 0)
    }

    @Test("--timeout bounds a server that never answers")
    func timeout() async throws {
        let server = try await http.value
        // A first page starts the web process, so the timed navigation measures the server alone.
        let result = try await NavwatchProcess.run(["--json", "--timeout", "3", server.url("/page").absoluteString,
                                                    server.url("/hang").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /page", "committed #1 /page 200 text/html", "finished #1 /page 200 text/html \"Plain\"",
            "started #2 /hang", "failed #2 /hang provisional timeout"])
        #expect(result.status == 1)
    }

    @Test("a reset after the headers is a committed failure with connection-reset")
    func reset() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/reset").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /reset", "committed #1 /reset 200 text/html", "failed #1 /reset committed connection-reset"])
    }

    @Test("with --wait-until commit, moving on or exiting cancels a page still loading; every navigation ends once")
    func cancelledByNextURL() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", "--wait-until", "commit",
                                                    server.url("/stall").absoluteString, server.url("/stall?again").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /stall", "committed #1 /stall 200 text/html", "failed #1 /stall committed cancelled",
            "started #2 /stall?again", "committed #2 /stall?again 200 text/html", "failed #2 /stall?again committed cancelled"])
        #expect(result.status == 0)
    }

    @Test("dialogs are accepted and printed with their answer; the page finishes")
    func dialogs() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/alert").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /alert", "committed #1 /alert 200 text/html", "dialog #1 /alert alert \"hello\" accepted",
            "dialog #1 /alert confirm \"sure?\" accepted", "finished #1 /alert 200 text/html \"Alert\""])
        let text = try await NavwatchProcess.run([server.url("/alert").absoluteString])
        let dialogs = text.stdout.filter { $0.contains(" dialog ") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).joined(separator: " ")
        }
        #expect(dialogs == ["alert \"hello\" accepted", "confirm \"sure?\" accepted"], "\(text.stdout)")
    }

    @Test("a crawl's report lists the page's dialogs with their answers")
    func dialogsInCrawlReport() async throws {
        let server = try await http.value
        let db = temporaryPath("dialogs.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", server.url("/alert").absoluteString])
        #expect(crawl.status == 0)
        let report = try #require(try crawl.stdout.first.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
        let dialogs = try #require(report["dialogs"] as? [[String: String]], "\(crawl.stdout)")
        #expect(dialogs == [["type": "alert", "message": "hello", "answer": "accepted"],
                            ["type": "confirm", "message": "sure?", "answer": "accepted"]])
    }

    @Test("a download is reported, then the navigation fails with policy")
    func download() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", server.url("/download").absoluteString])
        try expectEvents(result.stdout, base: server.baseURL, [
            "started #1 /download", "download #1 /download 200 application/octet-stream",
            "failed #1 /download provisional policy"])
        #expect(result.status == 1)
    }

    @Test("same-document changes and new-window requests are printed (--wait-until idle)")
    func sameDocumentAndNewWindow() async throws {
        let server = try await http.value
        let push = try await NavwatchProcess.run(["--json", "--wait-until", "idle", server.url("/push").absoluteString])
        try expectEvents(push.stdout, base: server.baseURL, [
            "started #1 /push", "committed #1 /push 200 text/html", "finished #1 /push 200 text/html \"Push\"",
            "same-document #1 /pushed push", "same-document #1 /pushed#frag fragment"])
        let window = try await NavwatchProcess.run(["--json", server.url("/window").absoluteString])
        try expectEvents(window.stdout, base: server.baseURL, [
            "started #1 /window", "committed #1 /window 200 text/html", "new-window #1 /page",
            "finished #1 /window 200 text/html"])
    }

    @Test("by default an error 200 ms after the load is printed and counted; --wait-until finish stops before it")
    func lateError() async throws {
        let server = try await http.value
        let url = server.url("/late-error").absoluteString
        let watched = try await NavwatchProcess.run(["--json", url])
        try expectEvents(watched.stdout, base: server.baseURL, [
            "started #1 /late-error", "committed #1 /late-error 200 text/html",
            "finished #1 /late-error 200 text/html \"Late\"", "page-error #1 /late-error:2 \"Error: late\""])
        let finishOnly = try await NavwatchProcess.run(["--json", "--wait-until", "finish", url])
        try expectEvents(finishOnly.stdout, base: server.baseURL, [
            "started #1 /late-error", "committed #1 /late-error 200 text/html",
            "finished #1 /late-error 200 text/html \"Late\""])
        let text = try await NavwatchProcess.run([url])
        #expect(text.stdout.last?.contains("1 page error") == true, "\(text.stdout)")
    }

    @Test("--resources adds one line per subresource event")
    func resources() async throws {
        let server = try await http.value
        let result = try await NavwatchProcess.run(["--json", "--resources", server.url("/page").absoluteString])
        let events = try summarise(result.stdout, base: server.baseURL)
        #expect(Array(events.prefix(3)) == ["started #1 /page", "resource-started #1 /page", "committed #1 /page 200 text/html"])
        // WebKit may report the main resource's end before or after the page's.
        #expect(Set(events.dropFirst(3)) == ["resource-finished #1 /page 200 text/html",
                                             "finished #1 /page 200 text/html \"Plain\""])
        #expect(events.count == 5)
    }

    @Test("bad input: one line on stderr, nothing on stdout, exit 2", arguments: [
        (["not a url"], "navwatch: \"not a url\" is not a URL"),
        (["ftp://example.org/"], "navwatch: cannot load \"ftp://example.org/\": the ftp: scheme is not supported (use http or https)"),
        (["http://"], "navwatch: \"http://\" is not a URL: it has no host"),
        ([], "navwatch: give at least one URL, or --demo (see navwatch --help)"),
        (["--bogus"], "navwatch: Unknown option '--bogus'"),
        (["--wait-until", "never", "example.org"],
         "navwatch: The value 'never' is invalid for '--wait-until <wait-until>'. Please provide one of 'commit', 'finish' or 'idle'."),
        (["--timeout=0", "example.org"], "navwatch: --timeout must be a positive number of seconds, 86400 (a day) at most, not 0.0"),
    ])
    func badInput(arguments: [String], message: String) async throws {
        let result = try await NavwatchProcess.run(arguments)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == message + "\n")
        #expect(result.status == 2)
    }

    @Test("--version prints the version of CHANGELOG.md's latest release heading, exit 0")
    func version() async throws {
        let changelog = try String(contentsOf: URL(filePath: #filePath).appending(path: "../../../CHANGELOG.md").standardizedFileURL,
                                   encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0.dropFirst(3).first?.isNumber == true })
        let released = try #require(heading.dropFirst(3).split(separator: " ").first)
        let result = try await NavwatchProcess.run(["--version"])
        #expect(result.stdout == [String(released)])
        #expect(result.stderr.isEmpty)
        #expect(result.status == 0)
    }

    @Test("no display and no Xvfb: one line that says what to install, exit 2")
    func noDisplay() async throws {
        let result = try await NavwatchProcess.run(["http://127.0.0.1:1/"], environment: ["NAVWATCH_XVFB": "/nonexistent/Xvfb"])
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "navwatch: WebKit is unavailable: DISPLAY is unset and Xvfb is not installed; install it (apt-get install xvfb xauth) or set DISPLAY\n")
        #expect(result.status == 2)
    }

    @Test("the demo watches its four pages and exits 0")
    func demo() async throws {
        for arguments in [["demo", "--json"], ["--demo", "--json"]] {
            let result = try await NavwatchProcess.run(arguments)
            let events = try summarise(result.stdout, base: nil).map { $0.replacingOccurrences(
                of: #"http://127\.0\.0\.1:\d+"#, with: "", options: .regularExpression) }
            #expect(events == [
                "started #1 /", "committed #1 / 200 text/html", "finished #1 / 200 text/html \"navwatch demo\"",
                "started #2 /old-home", "redirected #2 /", "committed #2 / 200 text/html",
                "finished #2 / 200 text/html \"navwatch demo\"",
                "started #3 /missing", "committed #3 /missing 404 text/html",
                "page-error #3 /missing:2 \"ReferenceError: Can't find variable: reportMissingPage\"",
                "finished #3 /missing 404 text/html \"Not found\"",
                "started #4 /slow", "committed #4 /slow 200 text/html",
                "console #4 /slow:3 warn \"slow page: the server took 800 ms\"",
                "finished #4 /slow 200 text/html \"Slow page\""])
            #expect(result.status == 0)
        }
    }

    @Test("Ctrl-C reports the running navigation as cancelled, exits 130 and leaves no Xvfb or WebKit process")
    func interrupt() async throws {
        let server = try await http.value
        let process = try NavwatchProcess(["--json", server.url("/hang").absoluteString, server.url("/page").absoluteString])
        try await process.waitForOutput { $0.contains { $0.contains("\"started\"") } }
        let children = descendantProcesses(of: process.pid)
        #expect(Set(children.values).isSuperset(of: ["Xvfb", "bwrap", "WebKitWebProces", "WebKitNetworkPr"]))
        process.signal(SIGINT)
        let result = try await process.finish()
        try expectEvents(result.stdout, base: server.baseURL, ["started #1 /hang", "failed #1 /hang provisional cancelled"])
        #expect(result.status == 130)
        #expect(await allDead(Array(children.keys)), "left behind: \(children)")
    }

    @Test("navwatch runs with the system's allocator (Malloc=1), its web and network processes with WebKit's")
    func allocators() async throws {
        let server = try await http.value
        let process = try NavwatchProcess(["--json", server.url("/hang").absoluteString])
        try await process.waitForOutput { $0.contains { $0.contains("\"started\"") } }
        /// The variables a process started with, by name.
        func environment(of pid: Int32) -> [String: String] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
            return Dictionary(bytes.split(separator: 0).map { entry in
                let text = String(decoding: entry, as: UTF8.self)
                let name = text.prefix { $0 != "=" }
                return (String(name), String(text.dropFirst(name.count + 1)))
            }, uniquingKeysWith: { first, _ in first })
        }
        #expect(environment(of: process.pid)["Malloc"] == "1")
        let webKit = descendantProcesses(of: process.pid).filter { ["WebKitWebProces", "WebKitNetworkPr"].contains($0.value) }
        #expect(Set(webKit.values) == ["WebKitWebProces", "WebKitNetworkPr"])
        for pid in webKit.keys {
            let variables = environment(of: pid)
            #expect(variables["DISPLAY"] != nil && variables["Malloc"] == nil && variables["NAVWATCH_SYSTEM_ALLOCATOR"] == nil,
                    "\(pid): \(variables.keys.sorted())")
        }
        process.signal(SIGINT)
        #expect(try await process.finish().status == 130)
    }

    @Test("after a normal exit no Xvfb or WebKit process is left")
    func cleanExit() async throws {
        let server = try await http.value
        let process = try NavwatchProcess(["--json", "--wait-until", "idle", server.url("/push").absoluteString])
        try await process.waitForOutput { $0.contains { $0.contains("\"started\"") } }
        let children = descendantProcesses(of: process.pid)
        #expect(!children.isEmpty)
        let result = try await process.finish()
        #expect(result.status == 0)
        #expect(await allDead(Array(children.keys)), "left behind: \(children)")
    }
}

/// Waits up to 5 s for every process in `pids` to exit (they are not our
/// children, so there is nothing to wait on but their /proc entries).
private func allDead(_ pids: [Int32]) async -> Bool {
    for _ in 0..<100 {
        if pids.allSatisfy(isDead) { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
