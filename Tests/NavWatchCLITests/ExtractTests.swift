import Foundation
import LoopbackServer
import NavWatchTestSupport
import Testing

/// A chain of 12 pages, each linking to the next two; page 5 has no heading.
private let chain = Task {
    try await LoopbackServer.start { request in
        guard request.path.hasPrefix("/n/"), let n = Int(request.path.dropFirst(3)), (0..<12).contains(n) else {
            return .html("<title>none</title>", status: 404)
        }
        let links = [n + 1, n + 2].filter { $0 < 12 }.map { "<a href=\"/n/\($0)\">next</a>" }.joined()
        let heading = n == 5 ? "" : "<h1>Heading \(n)</h1>"
        return .html("<!doctype html><title>Page \(n)</title>\(heading)<p>page \(n)</p>\(links)")
    }
}

/// The script of these tests: each page's title and link count; page 5 throws.
private let script = """
    // What each page of the chain holds.
    const heading = document.querySelector('h1');
    if (!heading) throw new Error('no heading on ' + location.pathname);
    await new Promise(resolve => setTimeout(resolve, 10));
    return {title: document.title, links: document.querySelectorAll('a').length, heading: heading.textContent};
    """

/// The data `script` gives page `n`, as a JSON text with sorted keys.
private func expectedData(_ n: Int) -> String {
    #"{"heading":"Heading \#(n)","links":\#([n + 1, n + 2].filter { $0 < 12 }.count),"title":"Page \#(n)"}"#
}

/// Each report line's `data` (as JSON with sorted keys) and `handler_error`, by URL path.
private func dataByPath(_ lines: [String]) throws -> [String: String] {
    var found: [String: String] = [:]
    for line in lines {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let url = try #require(object["url"] as? String)
        let path = try #require(URL(string: url)?.path)
        if let data = object["data"] {
            let json = try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys, .withoutEscapingSlashes])
            found[path] = String(decoding: json, as: UTF8.self)
        } else {
            found[path] = "error: " + (object["handler_error"] as? String ?? "none")
        }
    }
    return found
}

private let expectedByPath: [String: String] = Dictionary(uniqueKeysWithValues: (0..<12).map { n in
    ("/n/\(n)", n == 5 ? "error: the script threw: Error: no heading on /n/5 (line 3)" : expectedData(n))
})

@Suite("navwatch crawl --extract", .serialized)
struct ExtractTests {
    private func writeScript(_ text: String) throws -> String {
        let path = temporaryPath("extract.js")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("each page's data survives kill -9 and --resume; CSV has its columns, HAR its _data")
    func resumeAndExport() async throws {
        let server = try await chain.value
        let db = temporaryPath("crawl.db")
        let js = try writeScript(script)
        defer {
            removeSQLiteDatabase(atPath: db)
            try? FileManager.default.removeItem(atPath: js)
        }
        let first = try NavwatchProcess(["crawl", "--db", db, "--concurrency", "1", "--delay", "150", "--extract", js,
                                         server.url("/n/0").absoluteString])
        try await first.waitForOutput { $0.count >= 4 }
        first.signal(SIGKILL)
        let killed = try await first.finish()
        #expect(killed.status == 9 || killed.status == 137)
        #expect(killed.stdout.count >= 4 && killed.stdout.count < 12)
        let resumed = try await NavwatchProcess.run(["crawl", "--db", db, "--resume", "--extract", js])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        // What each process printed is what it stored.
        let printed = try dataByPath(killed.stdout).merging(try dataByPath(resumed.stdout)) { first, _ in first }
        #expect(printed == expectedByPath)

        let export = try await NavwatchProcess.run(["export", "--db", db])
        #expect(try dataByPath(export.stdout) == expectedByPath)

        let csv = try await NavwatchProcess.run(["export", "--db", db, "--format", "csv"])
        let rows = csv.stdout.map { $0.trimmingCharacters(in: .newlines) }
        #expect(rows.first?.hasSuffix(",attempts,handler_error,data.heading,data.links,data.title") == true, "\(rows.first ?? "")")
        let tails = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { row in
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            return (URL(string: String(fields[0]))!.path, fields.suffix(4).joined(separator: ","))
        })
        #expect(tails["/n/0"] == ",Heading 0,2,Page 0")
        #expect(tails["/n/11"] == ",Heading 11,0,Page 11")
        #expect(tails["/n/5"] == "the script threw: Error: no heading on /n/5 (line 3),,,")

        let har = try await NavwatchProcess.run(["export", "--db", db, "--format", "har"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(har.stdout.joined(separator: "\n").utf8)) as? [String: Any])
        let pages = try #require((root["log"] as? [String: Any])?["pages"] as? [[String: Any]])
        #expect(pages.count == 12)
        #expect(pages.compactMap { $0["_data"] as? [String: Any] }.map { $0["title"] as? String ?? "" }.sorted()
                == (0..<12).filter { $0 != 5 }.map { "Page \($0)" }.sorted())
        #expect(pages.compactMap { $0["_handlerError"] as? String } == ["the script threw: Error: no heading on /n/5 (line 3)"])
    }

    @Test("a script that returns nothing on every page: one line in the summary that suggests return")
    func returnsNothing() async throws {
        let server = try await chain.value
        let db = temporaryPath("crawl.db")
        let expression = try writeScript("({title: document.title})\n")
        defer {
            removeSQLiteDatabase(atPath: db)
            try? FileManager.default.removeItem(atPath: expression)
        }
        let result = try await NavwatchProcess.run(["crawl", "--db", db, "--extract", expression, server.url("/n/10").absoluteString])
        #expect(result.status == 0)
        #expect(result.stdout.count == 2)
        let hint = "  extract: the script returned nothing on any of 2 pages; "
            + "it is the body of a function: end it with return (return {h1: …}, not ({h1: …}))"
        #expect(result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  extract:") } == [hint])

        // A script that returns a value on some page says nothing.
        let returning = try writeScript("if (location.pathname === '/n/11') return {title: document.title};\n")
        defer { try? FileManager.default.removeItem(atPath: returning) }
        removeSQLiteDatabase(atPath: db)
        let quiet = try await NavwatchProcess.run(["crawl", "--db", db, "--extract", returning, server.url("/n/10").absoluteString])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.count == 2)
        #expect(!quiet.stderr.contains("extract:"))
    }

    @Test("a script that does not compile: one line with its error and line, exit 2, no page loaded")
    func badScript() async throws {
        let server = try await chain.value
        let db = temporaryPath("crawl.db")
        let js = try writeScript("const a = 1;\nconst b = 2;\nreturn {a: a, b: b;\n")
        defer {
            removeSQLiteDatabase(atPath: db)
            try? FileManager.default.removeItem(atPath: js)
        }
        let result = try await NavwatchProcess.run(["crawl", "--db", db, "--extract", js, server.url("/n/0").absoluteString])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "navwatch: the --extract script \(js) does not compile: line 3: SyntaxError: Unexpected token ';'. Expected '}' to end an object literal.\n")
        #expect(!FileManager.default.fileExists(atPath: db))

        let missing = try await NavwatchProcess.run(["crawl", "--db", db, "--extract", "/nonexistent/x.js", server.url("/n/0").absoluteString])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("navwatch: cannot read the --extract script /nonexistent/x.js: "))
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }
}
