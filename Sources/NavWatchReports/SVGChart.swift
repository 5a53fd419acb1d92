import Foundation
import NavWatchSupport
import NavWatchCrawler

/// Small SVG charts drawn as text: a report that needs no library and no
/// network to show its pictures.
enum SVGChart {
    /// One bar of a chart.
    struct Bar {
        var label: String
        var value: Double
        /// What the bar's end says (the value, formatted).
        var text: String
        var color = "#3b6ea5"
    }

    /// Horizontal bars, one a row, scaled to the largest value.
    static func horizontalBars(_ bars: [Bar], id: String, width: Int = 640) -> String {
        let rowHeight = 24, labelWidth = 190, textWidth = 90
        let height = max(1, bars.count) * rowHeight + 8
        let largest = bars.map(\.value).max() ?? 0
        let span = Double(width - labelWidth - textWidth)
        var svg = #"<svg id="\#(id)" class="chart" viewBox="0 0 \#(width) \#(height)" width="\#(width)" height="\#(height)" role="img">"#
        for (index, bar) in bars.enumerated() {
            let y = 4 + index * rowHeight
            let length = largest > 0 ? max(1, span * bar.value / largest) : 0
            svg += #"<text x="\#(labelWidth - 8)" y="\#(y + 16)" text-anchor="end">\#(HTML.escape(bar.label))</text>"#
            svg += #"<rect x="\#(labelWidth)" y="\#(y + 3)" width="\#(format(length))" height="\#(rowHeight - 8)" fill="\#(bar.color)"><title>\#(HTML.escape(bar.label)): \#(HTML.escape(bar.text))</title></rect>"#
            svg += #"<text x="\#(labelWidth + Int(length) + 6)" y="\#(y + 16)" class="value">\#(HTML.escape(bar.text))</text>"#
        }
        return svg + "</svg>"
    }

    /// Vertical bars over labelled buckets (a histogram). Every bar has its
    /// label as a tooltip; under the axis, labels that would not fit their
    /// slot are thinned to every second, third, ... one, starting with the first.
    static func columns(_ bars: [Bar], id: String, width: Int = 640, height: Int = 220) -> String {
        let bottom = height - 40, top = 20
        let largest = bars.map(\.value).max() ?? 0
        let slot = Double(width - 20) / Double(max(1, bars.count))
        let labelStep = self.labelStep(bars.map(\.label), slot: slot)
        var svg = #"<svg id="\#(id)" class="chart" viewBox="0 0 \#(width) \#(height)" width="\#(width)" height="\#(height)" role="img">"#
        svg += "<line x1=\"10\" y1=\"\(bottom)\" x2=\"\(width - 10)\" y2=\"\(bottom)\" stroke=\"#999\"/>"
        for (index, bar) in bars.enumerated() {
            let barHeight = largest > 0 ? Double(bottom - top) * bar.value / largest : 0
            let x = 10 + slot * Double(index)
            svg += #"<rect x="\#(format(x + slot * 0.15))" y="\#(format(Double(bottom) - barHeight))" width="\#(format(slot * 0.7))" height="\#(format(barHeight))" fill="\#(bar.color)"><title>\#(HTML.escape(bar.label)): \#(HTML.escape(bar.text))</title></rect>"#
            svg += #"<text x="\#(format(x + slot / 2))" y="\#(format(Double(bottom) - barHeight - 4))" text-anchor="middle" class="value">\#(HTML.escape(bar.text))</text>"#
            if index % labelStep == 0 {
                svg += #"<text x="\#(format(x + slot / 2))" y="\#(bottom + 16)" text-anchor="middle">\#(HTML.escape(bar.label))</text>"#
            }
        }
        return svg + "</svg>"
    }

    /// The report's axis text is 12 px sans-serif: at most this wide per character.
    static let characterWidth = 7.0

    /// Show every `labelStep`-th label: the smallest step at which the
    /// widest label, and a gap of one character, fits the space it gets.
    static func labelStep(_ labels: [String], slot: Double) -> Int {
        guard let longest = labels.map(\.count).max(), longest > 0 else { return 1 }
        let widest = Double(longest + 1) * characterWidth
        return max(1, Int((widest / max(slot, 1)).rounded(.up)))
    }

    /// One timing's spread over repeated loads as a box plot on a line:
    /// whiskers from the minimum to the maximum, a box over the
    /// interquartile range, a mark at the median; `scale` milliseconds span
    /// the whole width, so boxes of one table compare.
    static func box(_ spread: TimingSpread.Spread, scale: Double, width: Int = 240, height: Int = 18) -> String {
        let x = { (ms: Double) in format(2 + Double(width - 4) * min(1, ms / max(scale, 1))) }
        let middle = height / 2
        var svg = #"<svg class="box" viewBox="0 0 \#(width) \#(height)" width="\#(width)" height="\#(height)" role="img">"#
        svg += #"<title>min \#(format(spread.min)) ms, q1 \#(format(spread.q1)), median \#(format(spread.median)), q3 \#(format(spread.q3)), max \#(format(spread.max)) ms</title>"#
        svg += ##"<line x1="\##(x(spread.min))" x2="\##(x(spread.max))" y1="\##(middle)" y2="\##(middle)" stroke="#555"/>"##
        svg += ##"<rect x="\##(x(spread.q1))" y="3" width="\##(format(max(1, Double(width - 4) * (spread.q3 - spread.q1) / max(scale, 1))))" height="\##(height - 6)" fill="#9bb8d8" stroke="#3b6ea5"/>"##
        svg += ##"<line x1="\##(x(spread.median))" x2="\##(x(spread.median))" y1="1" y2="\##(height - 1)" stroke="#1d3b5c" stroke-width="2"/>"##
        return svg + "</svg>"
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
