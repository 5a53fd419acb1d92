import Foundation
@testable import NavWatchCrawler
import Testing

@Suite("Policy files: ignores, accepted statuses, remaps, severities, politeness and budgets")
struct PolicyFileTests {
    private static let file = #"""
        ignore = ["^https://twitter\\.com/", "/private/"]

        [[accept]]
        statuses = "200..=299"

        [[accept]]
        pattern = "linkedin\\.com"
        statuses = "200..300, 403, 999"

        [[remap]]
        pattern = "^https://example\\.org/(.*)$"
        replacement = "http://127.0.0.1:8080/$1"

        [[remap]]
        pattern = "^https://example\\.org"
        replacement = "never used"

        [severity]
        orphan = "warning"
        external-5xx = "error"

        [politeness]
        delay_ms = 200
        external_delay_ms = 0
        host_concurrency = 2

        [network]
        profile = "latency=80ms, down=2.5Mbps, up=500kbit/s"

        [[budget]]
        load_ms = 3000
        """#

    @Test("every key is read")
    func everyKey() throws {
        let policy = try PolicyFile(Self.file, name: "navwatch.toml")
        #expect(policy.ignore == [#"^https://twitter\.com/"#, "/private/"])
        #expect(policy.links.acceptances.map { "\($0.pattern ?? "*") \($0.statuses)" } == ["* 200..=299", #"linkedin\.com 200..=299, 403, 999"#])
        #expect(policy.remaps.map(\.replacement) == ["http://127.0.0.1:8080/$1", "never used"])
        #expect(policy.links.severities == ["orphan": .warning, "external-5xx": .error])
        #expect(policy.delayMs == 200 && policy.externalDelayMs == 0 && policy.hostConcurrency == 2)
        #expect(policy.budgets?.budgets.map(\.limits) == [[.loadMs: 3000]])
        #expect(policy.network == NetworkProfile(name: "latency=80ms,down=2500kbps,up=500kbps", roundTripMs: 80, downKbps: 2500, upKbps: 500))
        #expect(policy.network?.description == "latency=80ms,down=2500kbps,up=500kbps (2.5 Mbit/s down, 500 kbit/s up, 80 ms round trip)")
        #expect(try PolicyFile("", name: "empty.toml").budgets == nil)
    }

    @Test("the last acceptance that matches decides; with none, a status below 400 is fine")
    func acceptance() throws {
        let policy = try PolicyFile(Self.file, name: "navwatch.toml").links
        #expect(policy.accepts(204, for: "https://a.test/"))
        #expect(!policy.accepts(301, for: "https://a.test/"))   // the first [[accept]] takes 2xx only
        #expect(policy.accepts(999, for: "https://www.linkedin.com/in/x"))
        #expect(policy.accepts(403, for: "https://www.linkedin.com/in/x"))
        #expect(!policy.accepts(404, for: "https://www.linkedin.com/in/x"))
        #expect(LinkPolicy().accepts(399, for: "https://a.test/") && !LinkPolicy().accepts(400, for: "https://a.test/"))
    }

    @Test("a link check follows the acceptances: an accepted 403 is not broken, a refused 200 is")
    func linkCheck() throws {
        func report(_ path: String, _ outcome: PageLoadReport.Outcome, _ status: Int) -> PageLoadReport {
            var report = PageLoadReport(url: "http://s.test" + path, depth: 1, parent: nil, outcome: outcome)
            report.status = status
            return report
        }
        let policy = LinkPolicy(acceptances: [try .init(pattern: "/refused$", statuses: StatusRanges("403")!),
                                              try .init(pattern: "/strict$", statuses: StatusRanges("204")!)])
        let graph = LinkGraph(links: ["/refused", "/strict", "/gone"].map {
            PageLink(source: "http://s.test/", target: "http://s.test" + $0, href: $0, text: $0)
        })
        let result = LinkCheckResult(graph: graph, reports: [report("/refused", .httpError, 403), report("/strict", .ok, 200),
                                                             report("/gone", .httpError, 404)], policy: policy)
        #expect(result.broken.map(\.target) == ["http://s.test/gone", "http://s.test/strict"])
    }

    @Test("severities: external 429, 5xx, timeouts and TLS are warnings unless the file says otherwise")
    func severities() throws {
        let defaults = LinkPolicy()
        #expect(defaults.severity(of: .brokenExternal, cause: "external-429") == .warning)
        #expect(defaults.severity(of: .brokenExternal, cause: "external-tls") == .warning)
        #expect(defaults.severity(of: .brokenExternal, cause: nil) == .error)
        #expect(defaults.severity(of: .orphan, cause: nil) == .error)
        let policy = try PolicyFile(Self.file, name: "navwatch.toml").links
        #expect(policy.severity(of: .brokenExternal, cause: "external-5xx") == .error)
        #expect(policy.severity(of: .brokenExternal, cause: "external-timeout") == .warning)
        #expect(policy.severity(of: .orphan, cause: nil) == .warning)
    }

    @Test("remaps: the first that matches rewrites, with its groups")
    func remaps() throws {
        let remaps = try PolicyFile(Self.file, name: "navwatch.toml").remaps
        #expect(URLRemap.apply(remaps, to: "https://example.org/docs/a?b=c") == "http://127.0.0.1:8080/docs/a?b=c")
        #expect(URLRemap.apply(remaps, to: "https://other.test/") == "https://other.test/")
    }

    @Test("status ranges: inclusive, exclusive and single statuses; nothing else")
    func statusRanges() {
        #expect(StatusRanges("200..=299, 403")?.ranges == [200...299, 403...403])
        #expect(StatusRanges("200..300")?.ranges == [200...299])
        for bad in ["", "200-299", "299..=200", "200..200", "99", "1000", "2xx", "200,,403"] {
            #expect(StatusRanges(bad) == nil, "\(bad)")
        }
    }

    @Test("a bad value gives one line with the key and its line", arguments: [
        ("color = 1", "p.toml: line 1: unknown key color (one of ignore, accept, remap, severity, politeness, network, budget)"),
        ("ignore = \"x\"", "p.toml: line 1: ignore must be an array of strings (regular expressions)"),
        ("ignore = [\"(\"]", "p.toml: line 1: ignore: ( is not a regular expression"),
        ("accept = 1", "p.toml: line 1: accept must be an array of tables: write [[accept]]"),
        ("[[accept]]\npattern = \"a\"", "p.toml: line 1: [[accept]] 1: statuses must be a string such as \"200..=299, 403\""),
        ("[[accept]]\n\nstatuses = \"2xx\"",
         "p.toml: line 3: [[accept]] 1: statuses: 2xx is not a list of statuses and ranges from 100 to 999 (such as \"200..=299, 403\")"),
        ("[[accept]]\nstatuses = \"200\"\n[[accept]]\nstatuses = \"200\"\npattern = \"[\"",
         "p.toml: line 5: [[accept]] 2: pattern: [ is not a regular expression"),
        ("[[accept]]\nstatus = \"200\"", "p.toml: line 2: [[accept]] 1: status is not a key of it (one of pattern, statuses)"),
        ("[[remap]]\nreplacement = \"b\"", "p.toml: line 1: [[remap]] 1: pattern is missing"),
        ("[[remap]]\npattern = \"a\"\nreplacement = 2", "p.toml: line 3: [[remap]] 1: replacement must be a string"),
        ("severity = \"error\"", "p.toml: line 1: severity must be a table: write [severity]"),
        ("[severity]\nbroken = \"warning\"",
         "p.toml: line 2: [severity]: broken is not a kind of problem (one of broken-link, broken-resource, broken-external, missing-fragment, "
            + "missing-text-fragment, route-not-loadable, route-differs, orphan, page-error, console-error, budget, "
            + "external-429, external-5xx, external-timeout, external-tls)"),
        ("[severity]\norphan = \"info\"", "p.toml: line 2: [severity]: orphan must be \"error\" or \"warning\""),
        ("[politeness]\ndelay = 1",
         "p.toml: line 2: [politeness]: delay is not a politeness key (one of delay_ms, external_delay_ms, host_concurrency)"),
        ("[politeness]\ndelay_ms = -1", "p.toml: line 2: [politeness]: delay_ms must be a whole number of 0 or more"),
        ("[politeness]\nhost_concurrency = 0", "p.toml: line 2: [politeness]: host_concurrency must be a whole number of 1 or more"),
        ("[politeness]\nexternal_delay_ms = 1.5",
         "p.toml: line 2: [politeness]: external_delay_ms must be a whole number of 0 or more"),
        ("[[budget]]\nload = 1", "p.toml: line 2: [[budget]] 1: load is not a budget key (one of pattern, network, bytes_by_type, bytes, "
            + "console_errors, fcp_ms, lcp_ms, load_ms, page_errors, requests)"),
        ("network = \"3G\"", "p.toml: line 1: network must be a table: write [network]"),
        ("[network]\nprofil = \"3G\"", "p.toml: line 2: [network]: profil is not a network key (profile)"),
        ("[network]\nprofile = 3", "p.toml: line 2: [network]: profile must be a string such as \"3GFast\""),
        ("[network]\n\nprofile = \"5G\"", "p.toml: line 3: [network]: profile: 5G is not a network profile: one of Dial, Edge, "
            + "2G, 3GSlow, 3G, 3GFast, DSL, Cable, 4G, LTE, FIOS, or latency=150ms,down=1.6Mbps,up=768kbps"),
        ("[network]\nprofile = \"latency=fast\"",
         "p.toml: line 2: [network]: profile: latency=fast is not a round trip such as 150ms (0 to 60 s)"),
        ("ignore = [", "p.toml: line 1: "),
        ("[/\u{FFFD}", "p.toml: line 1: a table header must start with a key, such as [network]"),
        ("ignore = [\n  \"[/x]\",\n]\n# [!x]\n[[ !x]]", "p.toml: line 5: a table header must start with a key, such as [network]"),
    ])
    func badValues(text: String, message: String) {
        do {
            _ = try PolicyFile(text, name: "p.toml")
            Issue.record("\(text) was read")
        } catch {
            if message.hasSuffix(": ") {
                #expect(error.description.hasPrefix(message) && !error.description.contains("\n"))
            } else {
                #expect(error.description == message)
            }
        }
    }
}
