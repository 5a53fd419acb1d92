@testable import NavWatchCrawler
import NavWatchHTML
import Testing

/// The sampling rule as a pure state machine: exact decisions for exact sequences.
@Suite struct RenderSamplerTests {
    static let kind: HTMLDocument.Scripts = {
        var scripts = HTMLDocument.Scripts()
        scripts.sources = ["http://site/app.js"]
        return scripts
    }()
    static let agreeing = RenderComparison(html: (["a#"], ["top"], "T"), rendered: (["a#"], ["top", "button"], "T"))
    static let disagreeing = RenderComparison(html: (["a#", "b#"], [], "T"), rendered: (["a#"], [], "T"))
    /// URLs that are, and are not, spot-checked.
    static let checked = (0..<1000).map { "http://site/\($0)" }.first(where: RenderSampler.isSpotChecked)!
    static let unchecked = (0..<1000).map { "http://site/\($0)" }.first { !RenderSampler.isSpotChecked($0) }!

    @Test("the spot checks are the pages whose path and query hash below 2 in 100, whatever the host and port")
    func spotChecksIgnoreTheOrigin() {
        let paths = (0..<1000).map { "/docs/page\($0).html" }
        let picked = paths.indices.filter { RenderSampler.isSpotChecked("http://127.0.0.1:8080" + paths[$0]) }
        #expect(picked == [6, 97, 169, 209, 231, 293, 392, 446, 502, 546, 656, 701, 753, 763, 815, 820, 877, 990])
        for origin in ["https://example.org", "http://localhost:41234", "http://[::1]:9"] {
            #expect(paths.indices.filter { RenderSampler.isSpotChecked(origin + paths[$0]) } == picked, "\(origin)")
        }
        // The query counts; a URL without an authority is hashed whole.
        #expect(RenderSampler.isSpotChecked("http://a/docs/page6.html?q=1") == false)
        #expect(RenderSampler.isSpotChecked("/docs/page6.html") == true)
    }

    @Test("a page with nothing that runs is never rendered")
    func noScripts() {
        var sampler = RenderSampler()
        #expect(sampler.decide(.init(), url: Self.checked) == .readHTML(.noScripts))
    }

    @Test("three samples render, the fourth page waits, and after three agreements pages are read with the ids added")
    func agreement() {
        var sampler = RenderSampler()
        #expect((0..<3).map { _ in sampler.decide(Self.kind, url: Self.unchecked) } == Array(repeating: .render(.sample), count: 3))
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .wait)
        sampler.record(Self.kind, reason: .sample, Self.agreeing)
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .wait)  // one agreed, two still rendering
        for _ in 0..<2 { sampler.record(Self.kind, reason: .sample, Self.agreeing) }
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .readHTML(.sampleAgreed))
        #expect(sampler.decide(Self.kind, url: Self.checked) == .render(.spotCheck))
        #expect(sampler.idsAdded(by: Self.kind) == ["button"])
    }

    @Test("one disagreement, a sample's or a spot check's, renders the kind from then on")
    func disagreement() {
        var sampler = RenderSampler()
        for _ in 0..<3 { _ = sampler.decide(Self.kind, url: Self.unchecked) }
        for _ in 0..<3 { sampler.record(Self.kind, reason: .sample, Self.agreeing) }
        sampler.record(Self.kind, reason: .spotCheck, Self.disagreeing)
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .render(.kindDisagreed))
        var other = RenderSampler()
        _ = other.decide(Self.kind, url: Self.unchecked)
        other.record(Self.kind, reason: .sample, Self.disagreeing)
        #expect(other.decide(Self.kind, url: Self.unchecked) == .render(.kindDisagreed))
    }

    @Test("a render with nothing to compare gives its place in the sample to the next page")
    func abandoned() {
        var sampler = RenderSampler()
        for _ in 0..<3 { _ = sampler.decide(Self.kind, url: Self.unchecked) }
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .wait)
        sampler.abandon(Self.kind, reason: .sample)
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .render(.sample))
    }

    @Test("a comparison: links and ids may be added but not removed, titles must match")
    func comparison() {
        #expect(Self.agreeing.agrees && Self.agreeing.addedIDs == ["button"] && Self.agreeing.difference.isEmpty)
        #expect(!Self.disagreeing.agrees && Self.disagreeing.difference == "1 links removed")
        let removed = RenderComparison(html: (["a#", "b#"], ["x"], nil), rendered: (["a#", "c#"], [], "New"))
        #expect(removed.difference == "1 links removed, 1 ids removed, title changed" && removed.addedLinks == ["c#"])
        #expect(RenderComparison(html: ([], [], nil), rendered: ([], [], "")).agrees)
        #expect(["/docs/a", "https://x.example/a", "//x.example/a", " /a"].allSatisfy(RenderComparison.isLearnable(href:)))
        #expect(!["a.html", "../a", "#top", "", "?q=1", "1:2", "\u{E9}:x", "a b:c"].contains(where: RenderComparison.isLearnable(href:)))
    }

    static func menu(_ hrefs: [String]) -> (RenderComparison, [PageFacts.Link]) {
        let links = hrefs.map { PageFacts.Link(url: "http://site" + ($0.hasPrefix("/") ? $0 : "/docs/" + $0), href: $0,
                                               text: "menu", rel: "", element: "a") }
        let comparison = RenderComparison(html: (["a#"], [], "T"), rendered: (Set(["a#"] + links.map { $0.url + "#" }), [], "T"))
        return (comparison, links)
    }

    @Test("links every render of a kind adds, from the root or absolute, are learned: its pages read from HTML get them")
    func learnedLinks() {
        var sampler = RenderSampler()
        for _ in 0..<3 { _ = sampler.decide(Self.kind, url: Self.unchecked) }
        let (comparison, links) = Self.menu(["/one", "/two"])
        for n in 1...3 { sampler.record(Self.kind, reason: .sample, comparison, url: "http://site/s\(n)", added: links) }
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .readHTML(.sampleAgreed))
        #expect(sampler.linksAdded(by: Self.kind) == RenderSampler.LearnedLinks(
            links: links, keys: ["http://site/one#", "http://site/two#"], samples: ["http://site/s1", "http://site/s2", "http://site/s3"]))
        // A spot check that adds the same links agrees (one whose HTML has one of them already adds the
        // other only); one that adds others makes the kind rendered.
        sampler.record(Self.kind, reason: .spotCheck, comparison, url: Self.checked, added: links)
        let partial = RenderComparison(html: (["a#", "http://site/one#"], [], "T"),
                                       rendered: (["a#", "http://site/one#", "http://site/two#"], [], "T"))
        sampler.record(Self.kind, reason: .spotCheck, partial, url: Self.checked, added: [links[1]])
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .readHTML(.sampleAgreed))
        let (other, otherLinks) = Self.menu(["/one"])
        sampler.record(Self.kind, reason: .spotCheck, other, url: Self.checked, added: otherLinks)
        #expect(sampler.decide(Self.kind, url: Self.unchecked) == .render(.kindDisagreed))

        // Samples that add links of their own page disagree.
        var perPage = RenderSampler()
        for _ in 0..<3 { _ = perPage.decide(Self.kind, url: Self.unchecked) }
        let (first, firstLinks) = Self.menu(["/one"]), (second, secondLinks) = Self.menu(["/two"])
        perPage.record(Self.kind, reason: .sample, first, url: "http://site/s1", added: firstLinks)
        perPage.record(Self.kind, reason: .sample, second, url: "http://site/s2", added: secondLinks)
        #expect(perPage.decide(Self.kind, url: Self.unchecked) == .render(.kindDisagreed))
    }

    /// A page in `directory` (`http://site/docs/`) that is not spot-checked.
    static func page(in directory: String) -> String {
        (0..<1000).map { "\(directory)p\($0)" }.first { !RenderSampler.isSpotChecked($0) }!
    }

    @Test("links written relative to the page: learned in the samples' directory; a render in another must add the same URLs")
    func relativeLinks() {
        // Doxygen's menu: `functions.html` on a page at the root, `../../functions.html` two directories down.
        func menu(at page: String, _ href: String, _ url: String) -> (RenderComparison, [PageFacts.Link]) {
            let link = PageFacts.Link(url: url, href: href, text: "Functions", rel: "", element: "a")
            return (RenderComparison(html: ([], [], "T"), rendered: ([url + "#"], [], "T")), [link])
        }
        var sampler = RenderSampler()
        for n in 1...3 {
            _ = sampler.decide(Self.kind, url: "http://site/s\(n)")
            let (comparison, links) = menu(at: "http://site/s\(n)", "functions.html", "http://site/functions.html")
            sampler.record(Self.kind, reason: .sample, comparison, url: "http://site/s\(n)", added: links)
        }
        #expect(sampler.linksAdded(by: Self.kind)?.directories == ["http://site"])
        #expect(sampler.decide(Self.kind, url: Self.page(in: "http://site/")) == .readHTML(.sampleAgreed))
        let deeper = Self.page(in: "http://site/d0/d2c/")
        #expect(sampler.decide(Self.kind, url: deeper) == .render(.sample))
        #expect(sampler.decide(Self.kind, url: Self.page(in: "http://site/d1/")) == .wait)  // until that render is recorded
        // The render there adds the same URL, written for its page: the links hold in every directory.
        let (down, downLinks) = menu(at: deeper, "../../functions.html", "http://site/functions.html")
        sampler.record(Self.kind, reason: .sample, down, url: deeper, added: downLinks)
        #expect(sampler.linksAdded(by: Self.kind)?.directories == nil)
        #expect(sampler.linksAdded(by: Self.kind)?.samples == ["http://site/s1", "http://site/s2", "http://site/s3", deeper])
        #expect(sampler.decide(Self.kind, url: Self.page(in: "http://site/d5/")) == .readHTML(.sampleAgreed))

        // A script that writes the same relative link on every page leads elsewhere from another directory.
        var written = RenderSampler()
        for n in 1...3 {
            _ = written.decide(Self.kind, url: "http://site/s\(n)")
            let (comparison, links) = menu(at: "http://site/s\(n)", "functions.html", "http://site/functions.html")
            written.record(Self.kind, reason: .sample, comparison, url: "http://site/s\(n)", added: links)
        }
        #expect(written.decide(Self.kind, url: deeper) == .render(.sample))
        let (elsewhere, elsewhereLinks) = menu(at: deeper, "functions.html", "http://site/d0/d2c/functions.html")
        written.record(Self.kind, reason: .sample, elsewhere, url: deeper, added: elsewhereLinks)
        #expect(written.decide(Self.kind, url: Self.page(in: "http://site/")) == .render(.kindDisagreed))
    }

    @Test("a render's late window waits 500 ms of quiet when every page is rendered, 100 ms in the link checker's mode")
    func defaultSettle() {
        #expect(RenderMode.allCases.map(\.defaultSettle) == [.milliseconds(500), .milliseconds(100), .milliseconds(500)])
    }
}
