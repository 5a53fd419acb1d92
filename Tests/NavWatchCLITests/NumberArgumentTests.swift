import Foundation
import Testing

@Suite("Numbers on the command line and in the policy file: out of range is one line and status 2, never a crash")
struct NumberArgumentTests {
    private static let unreachable = "http://127.0.0.1:1/"
    private static func bandwidth(_ value: String) -> String {
        "\(value) is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"
    }

    @Test("huge numbers are refused before anything runs", arguments: [
        (["crawl", "--network", "latency=5ms,down=2e13Gbps", unreachable],
         "The value 'latency=5ms,down=2e13Gbps' is invalid for '--network <profile>': " + bandwidth("2e13Gbps")),
        (["crawl", "--network", "latency=5ms,up=1e16Gbps", unreachable],
         "The value 'latency=5ms,up=1e16Gbps' is invalid for '--network <profile>': " + bandwidth("1e16Gbps")),
        (["--network", "latency=5ms,down=2e13Gbps", unreachable],
         "The value 'latency=5ms,down=2e13Gbps' is invalid for '--network <profile>': " + bandwidth("2e13Gbps")),
        (["diff", "old.db", "new.db", "--slower-by", "1e19"], "--slower-by must be from 0 to 10000 percent"),
        (["diff", "old.db", "new.db", "--slower-by-ms", "1e300"], "--slower-by-ms must be from 0 to 3600000 milliseconds (an hour)"),
        (["diff", "old.db", "new.db", "--slower-by-ms=-1"], "--slower-by-ms must be from 0 to 3600000 milliseconds (an hour)"),
        (["crawl", "--timeout", "1e300", unreachable], "--timeout must be a positive number of seconds, 86400 (a day) at most, not 1e+300"),
        (["crawl", "--lease", "1e19", unreachable], "--lease must be from 1 to 86400 seconds (a day)"),
        (["crawl", "--extract", "x.js", "--extract-timeout", "1e300", unreachable],
         "--extract-timeout must be a positive number of seconds, 86400 (a day) at most, not 1e+300"),
        (["--timeout", "1e300", unreachable], "--timeout must be a positive number of seconds, 86400 (a day) at most, not 1e+300"),
        (["--runs", "0", unreachable], "--runs must be from 1 to 100"),
        (["crawl", "--runs", "101", unreachable], "--runs must be from 1 to 100"),
        (["--settle=-1", unreachable], "--settle must be 0 or more milliseconds"),
        (["crawl", "--settle=-1", unreachable], "--settle must be 0 or more milliseconds"),
    ])
    func hugeNumbers(arguments: [String], line: String) async throws {
        let result = try await NavwatchProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == "navwatch: \(line)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("a huge bandwidth in the policy file's [network] profile: its line, status 2, no database")
    func hugePolicyProfile() async throws {
        let db = temporaryPath("numbers.db"), file = temporaryPath("navwatch.toml")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "[network]\nprofile = \"latency=5ms,down=2e13Gbps\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--config", file, Self.unreachable])
        #expect(crawl.status == 2)
        #expect(crawl.stderr == "navwatch: \(file): line 2: [network]: profile: \(Self.bandwidth("2e13Gbps"))\n")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
