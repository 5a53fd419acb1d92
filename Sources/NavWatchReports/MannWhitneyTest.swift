import Foundation

/// Whether one sample of timings is larger than another: the one-sided
/// Mann–Whitney U test (Wilcoxon rank-sum), for the small samples of
/// repeated page loads.
///
/// The test is one-sided: `pValue` is the probability, were `before` and
/// `after` drawn from one distribution, of a U of `after` over `before` at
/// least as large as the one observed, so a small `pValue` says "after is
/// larger" (slower), never "after is smaller". Values that are not finite
/// are left out first. Tied values share their midrank and count one half
/// in U. Up to `exactLimit` values in all, `pValue` is exact: the
/// permutation probability given the ties, counted over every way of
/// choosing which of the values were `after`. Beyond it, `pValue` is the
/// normal approximation with tie correction and continuity correction (as
/// `scipy.stats.mannwhitneyu(after, before, alternative="greater",
/// method="asymptotic")`).
///
/// Why this test: page load times are skewed and have long tails, and a few
/// runs cannot show their shape, so a test that assumes normal timings (a t
/// test) is not to be trusted here. This test uses only the order of the
/// values and assumes nothing of their distribution; with few runs its
/// p-values are coarse, though: with 7 runs each the smallest possible is
/// 1/3432 (every run after slower than every run before), see
/// `minimumPValue(before:after:)`.
package struct MannWhitneyTest: Sendable, Equatable {
    /// The most values, both samples together, for which `pValue` is exact.
    /// The count takes about a third of a millisecond for 25 against 25 and
    /// a few microseconds for 7 against 7; the counts of subsets stay below
    /// 2^53 (C(50, 25) is about 1.3 × 10^14), so they are exact in a `Double`.
    package static let exactLimit = 50

    /// U of `after` over `before`: the pairs (b, a) with a > b, ties counting one half.
    package var u: Double
    /// The probability, were both samples drawn from one distribution, of a
    /// U at least this large (one-sided: "after is larger").
    package var pValue: Double
    /// Whether `pValue` is the exact permutation probability (up to
    /// `exactLimit` values) or the normal approximation with tie correction
    /// and continuity correction.
    package var isExact: Bool

    /// Tests whether `after` is larger than `before`, leaving out values that
    /// are not finite; nil when either sample is empty.
    package init?(before: [Double], after: [Double]) {
        let before = before.filter(\.isFinite), after = after.filter(\.isFinite)
        guard !before.isEmpty, !after.isEmpty else { return nil }
        let n = before.count, m = after.count, total = n + m

        // Ranks of the values in ascending order, doubled so that midranks
        // of ties are integers: a tie of t values from rank i + 1 to i + t
        // has midrank i + (t + 1) / 2, doubled 2i + t + 1.
        let sorted = (before.map { ($0, false) } + after.map { ($0, true) }).sorted { $0.0 < $1.0 }
        var doubledRanks: [Int] = []
        doubledRanks.reserveCapacity(total)
        var tieTerm = 0.0  // Σ (t³ − t) over the ties, for the normal approximation
        var start = 0
        while start < total {
            var end = start + 1
            while end < total, sorted[end].0 == sorted[start].0 { end += 1 }
            let t = end - start
            doubledRanks += repeatElement(2 * start + t + 1, count: t)
            tieTerm += Double(t) * Double(t) * Double(t) - Double(t)
            start = end
        }
        let afterRankSum = zip(sorted, doubledRanks).reduce(0) { $0 + ($1.0.1 ? $1.1 : 0) }
        // U = R − m(m + 1)/2, with R the (undoubled) rank sum of `after`.
        u = Double(afterRankSum - m * (m + 1)) / 2

        if total <= Self.exactLimit {
            pValue = Self.exactPValue(doubledRanks: doubledRanks, chosen: m, atLeast: afterRankSum)
            isExact = true
        } else {
            let mean = Double(n * m) / 2
            let variance = Double(n * m) / 12 * (Double(total + 1) - tieTerm / Double(total * (total - 1)))
            // With every value tied the variance is 0 and U equals its mean: p = 1.
            let z = variance > 0 ? (u - mean - 0.5) / variance.squareRoot() : -Double.infinity
            pValue = min(1, max(0, erfc(z / 2.0.squareRoot()) / 2))
            isExact = false
        }
    }

    /// The smallest p-value the exact test can give with these sample sizes,
    /// 1 / C(before + after, before), reached without ties when every value
    /// after exceeds every value before: a sample for which it exceeds a
    /// level can never be significant at that level.
    package static func minimumPValue(before: Int, after: Int) -> Double {
        let n = max(0, before), m = max(0, after), k = min(n, m)
        var choices = 1.0  // C(n + m − k + i, i), an integer at every step
        if k > 0 {
            for i in 1...k { choices = choices * Double(n + m - k + i) / Double(i) }
        }
        return 1 / choices
    }

    /// P(the doubled ranks of `chosen` values picked at random among
    /// `doubledRanks` sum to at least `atLeast`), by counting the subsets of
    /// each size and sum: `counts[k][s]` is the number of k-subsets of the
    /// ranks seen so far whose sum is s.
    private static func exactPValue(doubledRanks: [Int], chosen: Int, atLeast: Int) -> Double {
        let width = doubledRanks.reduce(0, +) + 1
        var counts = [Double](repeating: 0, count: (chosen + 1) * width)
        counts[0] = 1
        var reachable = 0  // the largest sum so far
        for (index, rank) in doubledRanks.enumerated() {
            reachable += rank
            // Subsets too small to reach `chosen` with the ranks left are not counted.
            let fewest = max(1, chosen - (doubledRanks.count - index - 1))
            // Larger subsets first, so that each rank is used at most once.
            for k in stride(from: min(index + 1, chosen), through: fewest, by: -1) {
                let row = k * width, previous = (k - 1) * width
                for sum in stride(from: reachable, through: rank, by: -1) {
                    counts[row + sum] += counts[previous + sum - rank]
                }
            }
        }
        let last = counts[(chosen * width)...]
        let all = last.reduce(0, +)
        let extreme = last.dropFirst(atLeast).reduce(0, +)
        return extreme / all
    }
}
