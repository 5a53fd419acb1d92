/// How a page's timings varied over repeated loads (`navwatch crawl --runs`):
/// for each timing, the median, the extremes and the interquartile range of
/// the runs that measured it.
///
/// Encodes with the keys of `PageLoadReport.Timings`; a timing no run measured is left out.
public struct TimingSpread: Codable, Sendable, Equatable {
    /// One timing over the runs, in milliseconds.
    public struct Spread: Codable, Sendable, Equatable {
        /// How many runs measured it.
        public var count: Int
        /// The middle value (the mean of the two middle ones for an even count).
        public var median: Double
        /// The smallest value.
        public var min: Double
        /// The largest value.
        public var max: Double
        /// The first quartile (25th percentile, linear interpolation between runs).
        public var q1: Double
        /// The third quartile (75th percentile).
        public var q3: Double

        /// The spread of `values`; nil when there are none.
        public init?(_ values: [Double]) {
            let sorted = values.filter(\.isFinite).sorted()
            guard let first = sorted.first, let last = sorted.last else { return nil }
            count = sorted.count
            min = first
            max = last
            median = Self.quantile(sorted, 0.5)
            q1 = Self.quantile(sorted, 0.25)
            q3 = Self.quantile(sorted, 0.75)
        }

        /// The interquartile range, `q3 - q1`.
        public var interquartileRange: Double { q3 - q1 }

        /// The `p` quantile of `sorted` as spreadsheets' `PERCENTILE.INC`
        /// and numpy's default give it: between the two nearest runs.
        private static func quantile(_ sorted: [Double], _ p: Double) -> Double {
            let position = p * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down))
            let upper = Swift.min(lower + 1, sorted.count - 1)
            let value = sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
            return (value * 10).rounded() / 10
        }
    }

    /// Of `PageLoadReport.Timings.ttfb`.
    public var ttfb: Spread?
    /// Of `PageLoadReport.Timings.domContentLoaded`.
    public var domContentLoaded: Spread?
    /// Of `PageLoadReport.Timings.load`.
    public var load: Spread?
    /// Of `PageLoadReport.Timings.finish`.
    public var finish: Spread?
    /// Of `PageLoadReport.Timings.firstContentfulPaint`.
    public var firstContentfulPaint: Spread?

    /// The spread of `runs`.
    public init(_ runs: [PageLoadReport.Timings]) {
        ttfb = Spread(runs.compactMap(\.ttfb))
        domContentLoaded = Spread(runs.compactMap(\.domContentLoaded))
        load = Spread(runs.compactMap(\.load))
        finish = Spread(runs.compactMap(\.finish))
        firstContentfulPaint = Spread(runs.compactMap(\.firstContentfulPaint))
    }

    enum CodingKeys: String, CodingKey {
        case ttfb, load, finish
        case domContentLoaded = "dom_content_loaded"
        case firstContentfulPaint = "first_contentful_paint"
    }
}

extension PageLoadReport {
    /// Adds one more load's `timings` to the page's `runs` (the report's
    /// own timings being the first), then sets `timings` to each timing's
    /// median over the runs and `spread` to how they varied. Why the first
    /// run had no first contentful paint is kept while no run had one.
    package mutating func addRun(_ run: Timings) {
        var all = runs ?? [timings]
        all.append(run)
        runs = all
        spread = TimingSpread(all)
        var medians = Timings()
        func median(_ value: KeyPath<Timings, Double?>) -> Double? { TimingSpread.Spread(all.compactMap { $0[keyPath: value] })?.median }
        medians.redirect = median(\.redirect)
        medians.commit = median(\.commit)
        medians.ttfb = median(\.ttfb)
        medians.domContentLoaded = median(\.domContentLoaded)
        medians.load = median(\.load)
        medians.finish = median(\.finish)
        medians.firstContentfulPaint = median(\.firstContentfulPaint)
        if medians.firstContentfulPaint == nil { medians.firstContentfulPaintUnavailable = all[0].firstContentfulPaintUnavailable }
        timings = medians
    }
}
