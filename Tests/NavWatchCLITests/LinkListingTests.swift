import Foundation
@testable import NavWatchReports
@testable import NavWatchCLI
@testable import NavWatchCrawler
import Testing

@Suite("LinkListing: the formats of navwatch links")
struct LinkListingTests {
    /// A 404 linked three times from one page with one text (three fragments), once from another.
    private static let result: LinkCheckResult = {
        var report = PageLoadReport(url: "http://s.test/gone", depth: 1, parent: nil, outcome: .httpError)
        report.status = 404
        let fragments: [String] = ["a", "b", "c"]
        let links = fragments.map { fragment in
            PageLink(source: "http://s.test/", target: "http://s.test/gone", href: "gone#" + fragment, fragment: fragment,
                     text: "Build")
        } + [PageLink(source: "http://s.test/x", target: "http://s.test/gone", href: "/gone", text: "a | b")]
        return LinkCheckResult(graph: LinkGraph(links: links), reports: [report])
    }()

    @Test("text: one line per page and text, with how many links say it")
    func text() {
        #expect(LinkListing(Self.result, brokenOnly: true).text == """
            ✘ http://s.test/gone  404 Not Found
                linked from http://s.test/  "Build"  (3 links)
                linked from http://s.test/x  "a | b"
            1 broken target, 4 links to them on 2 pages

            """)
    }

    @Test("a link learned from the renders of its page's kind says so, in text and JSON Lines")
    func learned() {
        var report = PageLoadReport(url: "http://s.test/gone", depth: 1, parent: nil, outcome: .httpError)
        report.status = 404
        let link = PageLink(source: "http://s.test/p", target: "http://s.test/gone", href: "/gone", text: "Gone",
                            learnedFrom: ["http://s.test/s1", "http://s.test/s2"])
        let listing = LinkListing(LinkCheckResult(graph: LinkGraph(links: [link]), reports: [report]), brokenOnly: true)
        #expect(listing.text == """
            ✘ http://s.test/gone  404 Not Found
                linked from http://s.test/p  "Gone"  (learned from 2 renders of its kind)
            1 broken target, 1 link to them on 1 page

            """)
        #expect(listing.jsonl.contains(#""learned_from":["http://s.test/s1","http://s.test/s2"]"#))
    }

    @Test("what a target is: a link outside the scope, a resource, a resource outside the scope")
    func kinds() {
        func report(_ path: String, resource: Bool?, external: Bool?) -> PageLoadReport {
            var report = PageLoadReport(url: "http://s.test" + path, depth: 1, parent: nil, outcome: .httpError)
            (report.status, report.checkedWith, report.resource, report.external) = (404, .head, resource, external)
            return report
        }
        let links = [
            PageLink(source: "http://s.test/", target: "http://s.test/a", href: "a", text: "A"),
            PageLink(source: "http://s.test/", target: "http://s.test/b", href: "b", text: "", element: "img", resource: "src"),
            PageLink(source: "http://s.test/", target: "http://s.test/c", href: "c", text: "", element: "img", resource: "src"),
        ]
        let result = LinkCheckResult(graph: LinkGraph(links: links), reports: [
            report("/a", resource: nil, external: true), report("/b", resource: true, external: nil),
            report("/c", resource: true, external: true),
        ])
        #expect(LinkListing(result, brokenOnly: true).text.split(separator: "\n").filter { $0.hasPrefix("✘") } == [
            "✘ http://s.test/a  404 Not Found  (external)", "✘ http://s.test/b  404 Not Found  (resource)",
            "✘ http://s.test/c  404 Not Found  (external resource)",
        ])
    }

    @Test("the closing summary's host lines: a host's pages, and the links checked on a host outside the scope")
    func hostLines() {
        let pacing = HostPacing(interval: 0, pushBacks: 1, widest: 2)
        let lines = HostSummaryText([HostStatistics(host: "a.test", requests: 3, pacing: pacing),
                                     HostStatistics(host: "external b.test", requests: 1, pacing: pacing)]).lines
        #expect(lines.map { String($0.prefix { $0 != ":" }) } == ["  host a.test", "  host b.test (links checked)"])
        #expect(FrontierEntry(url: "http://B.test/x", depth: 1, parent: nil, kind: .external).host == "external b.test")
        #expect(FrontierEntry.pacedHost("external b.test") == ("b.test", true) && FrontierEntry.pacedHost("a.test") == ("a.test", false))
    }

    @Test("markdown: a table whose cells keep their pipes escaped")
    func markdown() {
        #expect(LinkListing(Self.result, brokenOnly: true).markdown == """
            ### navwatch: 1 broken target, 4 links to them on 2 pages

            | | Target | Result | Linked from |
            |---|---|---|---|
            | ❌ | `http://s.test/gone` | 404 Not Found | http://s.test/ “Build” (3 links)<br>http://s.test/x “a \\| b” |

            """)
    }

    @Test("junit: a failure naming every place, XML-escaped")
    func junit() {
        let xml = LinkListing(Self.result, brokenOnly: false).junit
        #expect(xml.contains(#"<failure type="http-error" message="404 Not Found">linked from http://s.test/ &quot;Build&quot; (3 links)"#))
        #expect(xml.contains(#"tests="1" failures="1" skipped="0""#))
    }
}
