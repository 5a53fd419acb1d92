import Histogram
import NavWatchCrawler
import NavWatchSupport

/// One metric over the loaded pages of a report: how its values spread
/// (fixed buckets for a chart, a sketch for the median and 95th percentile)
/// and the pages with the highest values. Its size does not grow with the crawl.
struct MetricDistribution {
    /// A metric `navwatch report` shows, and how to read it from a report.
    struct Metric: Sendable {
        var id: String
        var title: String
        /// `ms`, `bytes` or an empty string (a count).
        var unit: String
        /// Upper bounds of the chart's buckets; one more bucket holds the rest.
        var buckets: [Double]
        /// What the report says when no page had a value.
        var whenNone = "no page had a value"
        var value: @Sendable (PageLoadReport) -> Double?
    }

    static let metrics: [Metric] = {
        let times = HTMLReport.loadTimeBuckets
        return [
            Metric(id: "ttfb", title: "Time to first byte", unit: "ms", buckets: times) { $0.timings.ttfb },
            Metric(id: "fcp", title: "First contentful paint", unit: "ms", buckets: times) { $0.timings.firstContentfulPaint },
            Metric(id: "lcp", title: "Largest contentful paint", unit: "ms", buckets: times, whenNone: PageMetrics.LCPUnavailable.noLCPEntries.rawValue) {
                $0.metrics?.largestContentfulPaint?.time
            },
            Metric(id: "dcl", title: "DOMContentLoaded", unit: "ms", buckets: times) { $0.timings.domContentLoaded },
            Metric(id: "load", title: "Load event", unit: "ms", buckets: times) { $0.timings.load },
            Metric(id: "last-resource", title: "First byte to last resource", unit: "ms", buckets: times) {
                $0.metrics?.firstByteToLastResource
            },
            Metric(id: "render-blocking", title: "Requests blocking render", unit: "", buckets: [1, 2, 3, 5, 10, 20, 50]) {
                $0.metrics?.renderBlockingRequests.map(Double.init)
            },
            Metric(id: "dom-size", title: "DOM size (elements)", unit: "", buckets: [100, 250, 500, 1000, 1500, 3000, 10000]) {
                $0.metrics?.domSize.map(Double.init)
            },
            Metric(id: "largest-resource", title: "Largest resource", unit: "bytes",
                   buckets: [10_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 5_000_000]) {
                $0.metrics?.largestResource.map { Double($0.bytes) }
            },
        ]
    }()

    let metric: Metric
    private(set) var counts: [Int]
    private var sketch = Histogram<UInt64>(numberOfSignificantValueDigits: .two)
    private(set) var highest = ReportDigest.Leaders(limit: 5)

    init(_ metric: Metric) {
        self.metric = metric
        counts = [Int](repeating: 0, count: metric.buckets.count + 1)
    }

    /// Pages that had a value.
    var measured: Int { highest.offered }

    /// The value `percentile` percent of the measured pages had at most (two significant digits).
    func value(percentile: Double) -> Double? {
        sketch.totalCount == 0 ? nil : Double(sketch.valueAtPercentile(percentile))
    }

    /// Counts `report` (a loaded page without its requests) when it has a value.
    mutating func add(_ report: PageLoadReport) {
        guard let value = metric.value(report), value.isFinite, value >= 0 else { return }
        counts[metric.buckets.firstIndex { value < $0 } ?? metric.buckets.count] += 1
        _ = sketch.record(UInt64(value.rounded()))
        highest.offer(report, rank: [value])
    }

    /// `value` in the metric's unit, as the report prints it.
    func text(_ value: Double) -> String {
        switch metric.unit {
        case "ms": return value.millisecondsText
        case "bytes": return HTMLReport.bytesText(Int(value))
        default: return String(Int(value))
        }
    }

    /// A bucket's bound in the metric's unit, as the chart labels it.
    private func bound(_ value: Double) -> String {
        metric.unit == "ms" ? HTMLReport.boundText(value) : text(value)
    }

    /// The chart's bars: one per bucket.
    var bars: [SVGChart.Bar] {
        HTMLReport.bucketBars(counts, bounds: metric.buckets, label: bound)
    }
}
