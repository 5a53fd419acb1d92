import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

/// A chain of 20 pages, each linking to the next two.
private let chain = Task {
    try await LoopbackServer.start { request in
        guard request.path.hasPrefix("/n/"), let n = Int(request.path.dropFirst(3)), (0..<20).contains(n) else {
            return request.path == "/robots.txt" ? .text("User-agent: *\nAllow: /\n") : .html("<title>none</title>", status: 404)
        }
        let links = [n + 1, n + 2].filter { $0 < 20 }.map { "<a href=\"/n/\($0)\">next</a>" }.joined()
        return .html("<!doctype html><title>Page \(n)</title><p>page \(n)</p>\(links)")
    }
}

@Suite("navwatch crawl and export", .serialized)
struct CrawlCommandTests {
    @Test("a crawl killed with kill -9 resumes: every page exactly once, none lost")
    func resumeAfterKill() async throws {
        let server = try await chain.value
        let db = temporaryPath("crawl.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let first = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "1", "--delay", "150",
                                         server.url("/n/0").absoluteString])
        try await first.waitForOutput { $0.count >= 5 }
        first.signal(SIGKILL)
        let killed = try await first.finish()
        #expect(killed.status == 9 || killed.status == 137)
        #expect(killed.stdout.count >= 5 && killed.stdout.count < 20)

        let again = try await NavwatchProcess.run(["crawl", "--db", db, server.url("/n/0").absoluteString])
        #expect(again.status == 2)
        #expect(again.stderr == "navwatch: \(db) already holds a crawl: add --resume to continue it, or choose another --db\n")

        let resumed = try await NavwatchProcess.run(["crawl", "--db", db, "--resume"])
        #expect(resumed.status == 0)
        let printed = try reportURLs(killed.stdout) + reportURLs(resumed.stdout)
        #expect(Set(printed).count == printed.count, "a page was reported twice: \(printed)")

        let export = try await NavwatchProcess.run(["export", "--db", db, "--format", "jsonl"])
        let stored = try reportURLs(export.stdout)
        #expect(stored.sorted() == (0..<20).map { server.url("/n/\($0)").absoluteString }.sorted())
        #expect(Set(printed).isSubset(of: Set(stored)))
    }

    @Test("CSV and HAR exports hold every report, the HAR with HAR 1.2's required fields")
    func exports() async throws {
        let server = try await chain.value
        let db = temporaryPath("crawl.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-pages", "5", "--out", db + ".jsonl",
                                                   server.url("/n/0").absoluteString])
        defer { try? FileManager.default.removeItem(atPath: db + ".jsonl") }
        #expect(crawl.status == 0)
        #expect(crawl.stdout.isEmpty)
        #expect(crawl.stderr.contains("crawl: 5 pages loaded"))
        let written = try String(contentsOfFile: db + ".jsonl", encoding: .utf8).split(separator: "\n")
        #expect(written.count >= 5)

        let csv = try await NavwatchProcess.run(["export", "--db", db, "--format", "csv"])
        #expect(csv.status == 0)
        let rows = csv.stdout.map { $0.trimmingCharacters(in: .newlines) }
        #expect(rows.first == "url,final_url,outcome,skip_reason,status,mime,title,depth,parent,fetched_at,error_kind,error_message,redirects,commit_ms,ttfb_ms,dom_content_loaded_ms,load_ms,finish_ms,first_contentful_paint_ms,resources,failed_resources,transfer_bytes,links,attempts,handler_error")
        #expect(rows.count == written.count + 1)
        #expect(rows.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 25 })
        #expect(rows.filter { $0.contains(",ok,") }.count == 5)

        let har = try await NavwatchProcess.run(["export", "--db", db, "--format", "har"])
        #expect(HARValidator.problems(in: Data(har.stdout.joined(separator: "\n").utf8)) == [])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(har.stdout.joined(separator: "\n").utf8)) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? [String: Any])
        #expect(creator["name"] is String && creator["version"] is String)
        let pages = try #require(log["pages"] as? [[String: Any]])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(pages.count == 5 && entries.count == 5)
        for page in pages {
            for key in ["startedDateTime", "id", "title", "pageTimings"] { #expect(page[key] != nil, "page lacks \(key)") }
            let timings = try #require(page["pageTimings"] as? [String: Any])
            #expect((timings["onContentLoad"] as? Double ?? -1) > 0 && (timings["onLoad"] as? Double ?? -1) > 0)
        }
        for entry in entries {
            for key in ["pageref", "startedDateTime", "time", "request", "response", "cache", "timings"] {
                #expect(entry[key] != nil, "entry lacks \(key)")
            }
            let request = try #require(entry["request"] as? [String: Any])
            for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
                #expect(request[key] != nil, "request lacks \(key)")
            }
            let response = try #require(entry["response"] as? [String: Any])
            for key in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] {
                #expect(response[key] != nil, "response lacks \(key)")
            }
            let content = try #require(response["content"] as? [String: Any])
            #expect(content["size"] != nil && content["mimeType"] != nil)
            let timings = try #require(entry["timings"] as? [String: Any])
            for key in ["send", "wait", "receive"] { #expect(timings[key] != nil, "timings lack \(key)") }
        }
    }

    @Test("bad crawl options: one line, exit 2", arguments: [
        (["crawl", "--concurrency", "0", "example.org"], "navwatch: --concurrency must be at least 1"),
        (["crawl"], "navwatch: give at least one seed URL, or --resume"),
        (["crawl", "--include", "(", "example.org"], "navwatch: \"(\" is not a valid regular expression"),
        (["crawl", "--scope", "planet", "example.org"],
         "navwatch: The value 'planet' is invalid for '--scope <scope>'. Please provide one of 'same-origin', 'same-host', 'same-domain' or 'any'."),
        (["crawl", "--db", "/nonexistent/dir/crawl.db", "example.org"], nil),
        (["export", "--db", "/nonexistent/crawl.db"], "navwatch: no crawl database at /nonexistent/crawl.db"),
        (["links", "--db", "/nonexistent/crawl.db"], "navwatch: no crawl database at /nonexistent/crawl.db"),
        (["crawl", "--fail-on", "broken,nonsense", "example.org"],
         "navwatch: The value 'broken,nonsense' is invalid for '--fail-on <list>': give one or more of 'broken', 'external', "
             + "'fragments', 'text-fragments', 'routes', 'orphans', 'budgets', separated by commas."),
        (["crawl", "--render", "sometimes", "example.org"],
         "navwatch: The value 'sometimes' is invalid for '--render <mode>'. Please provide one of 'always', 'auto' or 'never'."),
        (["crawl", "--fast", "--render", "never", "example.org"],
         "navwatch: --fast is --render auto: it cannot be combined with --render never"),
        (["crawl", "--fast", "--extract", "/dev/null", "example.org"],
         "navwatch: --extract runs on rendered pages: it cannot be combined with --fast"),
        (["crawl", "--render", "never", "--screenshots", "shots", "example.org"],
         "navwatch: --screenshots needs rendered pages: it cannot be combined with --render never"),
        (["crawl", "--read-concurrency", "0", "example.org"], "navwatch: --read-concurrency must be at least 1"),
        (["crawl", "--viewport", "0x0", "example.org"], "navwatch: the viewport's width 0 is not between 1 and 16384 pixels"),
        (["example.org", "--viewport", "390x99999"], "navwatch: the viewport's height 99999 is not between 1 and 16384 pixels"),
        (["example.org", "--viewport", "wide"],
         "navwatch: The value 'wide' is invalid for '--viewport <WxH>'"),
        (["crawl", "--timezone", "Mars/Olympus", "example.org"],
         #"navwatch: the time zone "Mars/Olympus" is unknown (give an IANA name, such as Europe/Berlin)"#),
        (["example.org", "--device", "Nokia 3310"],
         #"navwatch: the device "Nokia 3310" is unknown (known: iPhone 13, iPhone 15, Pixel 7, iPad Pro 11, Desktop Chrome, Desktop Firefox, Desktop Safari)"#),
    ] as [([String], String?)])
    func badOptions(arguments: [String], message: String?) async throws {
        let result = try await NavwatchProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        if let message { #expect(result.stderr == message + "\n") }
        else { #expect(result.stderr.hasPrefix("navwatch: cannot open the crawl database /nonexistent/dir/crawl.db: ")) }
    }

    @Test("--fast: every report says how it was made, and the summary counts them")
    func fast() async throws {
        let db = temporaryPath("crawl.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let result = try await NavwatchProcess.run(["crawl", "--demo", "--fast", "--db", db])
        #expect(result.status == 0)
        // Each demo page runs a script of its own: each is the first of its kind, a sample.
        #expect(result.stderr.split(separator: "\n").contains("  rendered: 4 (sample 4); read from HTML: 0"))
        let reports = try result.stdout.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            .filter { $0["resource"] == nil }  // the demo's style sheet and script, checked as resources
        #expect(reports.count == 4)
        #expect(reports.allSatisfy { $0["rendered"] as? Bool == true && $0["render_reason"] as? String == "sample" })
        let never = try await NavwatchProcess.run(["crawl", "--demo", "--render", "never", "--db", db + "-never"])
        defer { removeSQLiteDatabase(atPath: db + "-never") }
        #expect(never.status == 0)
        #expect(never.stderr.split(separator: "\n").contains("  rendered: 0; read from HTML: 4 (never 4)"))
    }

    @Test("--fast on a site whose pages have no scripts starts no web process: it runs where WebKit cannot")
    func fastWithoutWebKit() async throws {
        let server = try await LoopbackServer.start { request in
            switch request.path {
            case "/": .html("<!doctype html><title>Home</title><a href=\"/b\">b</a><a href=\"/app\">app</a>")
            case "/b": .html("<!doctype html><title>B</title><a href=\"/\">home</a>")
            default: .html("<!doctype html><title>App</title><script>document.title = 'Ran'</script>")
            }
        }
        defer { Task { await server.shutdown() } }
        let db = temporaryPath("crawl.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let noWebKit = ["NAVWATCH_XVFB": "/nonexistent/Xvfb"]
        let result = try await NavwatchProcess.run(["crawl", "--fast", "--exclude", "/app", "--db", db, server.url("/").absoluteString],
                                                   environment: noWebKit)
        #expect(result.status == 0)
        #expect(result.stderr.split(separator: "\n").contains("  rendered: 0; read from HTML: 2 (no-scripts 2)"))
        // A page with a script must be rendered: without WebKit, the crawl stops with one line.
        let scripted = try await NavwatchProcess.run(["crawl", "--fast", "--db", db + "-app", server.url("/app").absoluteString],
                                                     environment: noWebKit)
        defer { removeSQLiteDatabase(atPath: db + "-app") }
        #expect(scripted.status == 2)
        #expect(scripted.stderr.hasSuffix("navwatch: WebKit is unavailable: DISPLAY is unset and Xvfb is not installed; "
                                          + "install it (apt-get install xvfb xauth) or set DISPLAY\n"))
    }

    @Test("an unreachable seed: one line, exit 2")
    func unreachableSeed() async throws {
        let db = temporaryPath("crawl.db")
        defer { removeSQLiteDatabase(atPath: db) }
        let result = try await NavwatchProcess.run(["crawl", "--db", db, "--retries", "0", "http://127.0.0.1:1/"])
        #expect(result.status == 2)
        #expect(result.stderr.hasSuffix("navwatch: no seed could be loaded: http://127.0.0.1:1/: not allowed to use a restricted network port\n"))
    }
}
