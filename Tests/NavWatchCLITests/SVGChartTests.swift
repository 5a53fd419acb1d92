import Testing
@testable import NavWatchReports

/// The HTML report's histograms: axis labels never run into each other.
@Suite("SVG histograms")
struct SVGChartTests {
    private func axisLabels(_ svg: String) -> [String] {
        svg.matches(of: /<text x="[\d.]+" y="\d+" text-anchor="middle">([^<]*)<\/text>/).map { $0.1.replacingOccurrences(of: "&lt;", with: "<") }
    }

    private let labels = ["< 100 ms", "< 250 ms", "< 500 ms", "< 1.0 s", "< 2.5 s", "< 5.0 s", "< 10.0 s", "≥ 10.0 s"]

    @Test("a small chart (420 px, eight buckets) shows every second label; a wide one shows all")
    func thinned() {
        let bars = labels.map { SVGChart.Bar(label: $0, value: 1, text: "1") }
        // 50 px a slot, labels of up to 8 characters: 63 px with a gap.
        #expect(axisLabels(SVGChart.columns(bars, id: "small", width: 420, height: 150))
                == ["< 100 ms", "< 500 ms", "< 2.5 s", "< 10.0 s"])
        #expect(axisLabels(SVGChart.columns(bars, id: "wide", width: 820, height: 150)) == labels)
        // Every bar keeps its label as a tooltip.
        #expect(SVGChart.columns(bars, id: "small", width: 420, height: 150).matches(of: /<title>/).count == 8)
    }

    @Test("the step is the smallest at which the widest label fits")
    func step() {
        #expect(SVGChart.labelStep(["< 100 ms"], slot: 63) == 1)
        #expect(SVGChart.labelStep(["< 100 ms"], slot: 62.9) == 2)
        #expect(SVGChart.labelStep(["< 100 ms"], slot: 20) == 4)
        #expect(SVGChart.labelStep([], slot: 0) == 1)
    }
}
