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
    static let disagreeing = RenderComparison(html: (["a#"], [], "T"), rendered: (["a#", "b#"], [], "T"))
    /// URLs that are, and are not, spot-checked.
    static let checked = (0..<1000).map { "http://site/\($0)" }.first(where: RenderSampler.isSpotChecked)!
    static let unchecked = (0..<1000).map { "http://site/\($0)" }.first { !RenderSampler.isSpotChecked($0) }!

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

    @Test("a comparison: links must match, ids may be added but not removed, titles must match")
    func comparison() {
        #expect(Self.agreeing.agrees && Self.agreeing.addedIDs == ["button"] && Self.agreeing.difference.isEmpty)
        #expect(!Self.disagreeing.agrees && Self.disagreeing.difference == "1 links added")
        let removed = RenderComparison(html: (["a#", "b#"], ["x"], nil), rendered: (["a#"], [], "New"))
        #expect(removed.difference == "1 links removed, 1 ids removed, title changed")
        #expect(RenderComparison(html: ([], [], nil), rendered: ([], [], "")).agrees)
    }
}
