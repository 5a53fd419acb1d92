@testable import NavWatchReports
import Testing

/// The reference p-values come from SciPy 1.17.1: `scipy.stats.mannwhitneyu(after,
/// before, alternative="greater")`, `method="exact"` without ties and
/// `method="asymptotic"` (continuity correction on) for the large samples.
/// SciPy's exact method ignores ties, so the p-values with ties come from
/// `scipy.stats.permutation_test` over every split (`n_resamples=np.inf`,
/// the statistic U), checked by counting the splits with
/// `itertools.combinations`, as fractions.
@Suite("MannWhitneyTest: is one sample of timings larger than another")
struct MannWhitneyTestTests {
    private static func test(_ before: [Double], _ after: [Double]) throws -> MannWhitneyTest {
        try #require(MannWhitneyTest(before: before, after: after))
    }

    @Test("every run after slower than every run before: U = 49, p = 1/3432, the smallest there is for 7 against 7")
    func separated() throws {
        let result = try Self.test([100, 101, 102, 103, 104, 105, 106], [200, 201, 202, 203, 204, 205, 206])
        #expect(result.u == 49)
        #expect(abs(result.pValue - 1.0 / 3432) < 1e-12)
        #expect(result.isExact)
        #expect(MannWhitneyTest.minimumPValue(before: 7, after: 7) == 1.0 / 3432)
    }

    @Test("every run after faster: U = 0, p = 1 (one-sided, so faster is never significant)")
    func reversed() throws {
        let result = try Self.test([200, 201, 202, 203, 204, 205, 206], [100, 101, 102, 103, 104, 105, 106])
        #expect(result.u == 0)
        #expect(abs(result.pValue - 1) < 1e-12)
        #expect(result.isExact)
    }

    @Test("identical samples: U = 12.5, p = 37/63 given the ties")
    func identical() throws {
        let result = try Self.test([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
        #expect(result.u == 12.5)
        #expect(abs(result.pValue - 37.0 / 63) < 1e-12)  // 0.5873015873015873
        #expect(result.isExact)
    }

    @Test("ties count one half in U and the p-value is exact given them (midranks)")
    func ties() throws {
        let first = try Self.test([100, 101, 101, 103, 105, 105], [101, 103, 104, 105, 106, 108])
        #expect(first.u == 26.5)
        #expect(abs(first.pValue - 47.0 / 462) < 1e-12)  // 0.10173160173160173; SciPy's exact, blind to ties: 0.1201…
        #expect(first.isExact)
        let second = try Self.test([10, 10, 12, 15, 15, 20], [12, 15, 15, 20, 20, 22])
        #expect(second.u == 27.5)
        #expect(abs(second.pValue - 25.0 / 308) < 1e-12)  // 0.08116883116883117
        #expect(abs(try Self.test([5, 5, 5], [5, 5, 5, 5]).pValue - 1) < 1e-12)
    }

    @Test("samples of different sizes: 3 against 5")
    func threeAgainstFive() throws {
        let result = try Self.test([120.5, 98.25, 110], [101, 130.75, 125.5, 99, 140])
        #expect(result.u == 11)
        #expect(abs(result.pValue - 11.0 / 56) < 1e-12)  // 0.19642857142857142
        #expect(result.isExact)
        #expect(abs(MannWhitneyTest.minimumPValue(before: 3, after: 5) - 1.0 / 56) < 1e-15)
    }

    @Test("one run each: p = 1/2 when after is larger, 1 when it is not")
    func oneAgainstOne() throws {
        let larger = try Self.test([1], [2]), equal = try Self.test([1], [1]), smaller = try Self.test([2], [1])
        #expect(larger.u == 1 && abs(larger.pValue - 0.5) < 1e-12)
        #expect(equal.u == 0.5 && abs(equal.pValue - 1) < 1e-12)
        #expect(smaller.u == 0 && abs(smaller.pValue - 1) < 1e-12)
        #expect(MannWhitneyTest.minimumPValue(before: 1, after: 1) == 0.5)
    }

    @Test("25 against 25, the most values counted exactly")
    func atTheExactLimit() throws {
        let before = (0..<25).map { Double($0 * 17 % 50) }, after = (25..<50).map { Double($0 * 17 % 50) + 10.5 }
        let result = try Self.test(before, after)
        #expect(MannWhitneyTest.exactLimit == 50)
        #expect(result.isExact)
        #expect(result.u == 525)
        #expect(abs(result.pValue - 7.392225710586644e-06) < 1e-12)
    }

    @Test("30 against 30 with 26 ties: the normal approximation, tie and continuity corrected")
    func asymptotic() throws {
        let before = (0..<30).map { 100 + Double($0 * 37 % 29) }, after = (0..<30).map { 103 + Double($0 * 53 % 31) }
        let result = try Self.test(before, after)
        #expect(!result.isExact)
        #expect(result.u == 578.5)
        #expect(abs(result.pValue / 0.029172925430288182 - 1) < 1e-9)
        let allTied = try Self.test(Array(repeating: 5, count: 30), Array(repeating: 5, count: 30))
        #expect(!allTied.isExact && allTied.u == 450 && allTied.pValue == 1)
    }

    @Test("values that are not finite are left out; an empty side gives no test")
    func nonFiniteAndEmpty() throws {
        let clean = try Self.test([120.5, 98.25, 110], [101, 130.75, 125.5, 99, 140])
        let dirty = try Self.test([.nan, 120.5, 98.25, .infinity, 110], [101, 130.75, -.infinity, 125.5, 99, 140, .nan])
        #expect(dirty == clean)
        #expect(MannWhitneyTest(before: [], after: [1, 2]) == nil)
        #expect(MannWhitneyTest(before: [1, 2], after: []) == nil)
        #expect(MannWhitneyTest(before: [.nan, .infinity], after: [1, 2]) == nil)
    }

    @Test("minimumPValue is 1 / C(n + m, n)")
    func minimumPValue() {
        #expect(MannWhitneyTest.minimumPValue(before: 7, after: 7) == 1.0 / 3432)
        #expect(MannWhitneyTest.minimumPValue(before: 5, after: 3) == 1.0 / 56)
        #expect(MannWhitneyTest.minimumPValue(before: 25, after: 25) == 1.0 / 126_410_606_437_752)
        #expect(MannWhitneyTest.minimumPValue(before: 0, after: 4) == 1)
        // Three runs each can never reach 0.01: 1/20.
        #expect(MannWhitneyTest.minimumPValue(before: 3, after: 3) == 0.05)
    }

    /// How many of 2000 pairs of 7 runs against 7 have p <= 0.01, the runs
    /// taking 100 ms times a uniform factor in [0.7, 1.3], times `slowdown` after.
    private static func significantPairs(slowdown: Double, seed: UInt64) -> Int {
        var generator = SplitMix64(seed: seed)
        func run() -> Double { 100 * (0.7 + 0.6 * generator.nextUnit()) }
        var significant = 0
        for _ in 0..<2000 {
            let before = (0..<7).map { _ in run() }, after = (0..<7).map { _ in slowdown * run() }
            if let test = MannWhitneyTest(before: before, after: after), test.pValue <= 0.01 { significant += 1 }
        }
        return significant
    }

    @Test("no slowdown: at most 1% of pairs significant at 0.01 (the exact test is conservative)")
    func falsePositiveRate() {
        let count = Self.significantPairs(slowdown: 1, seed: 0x4E41_5657_4154_4348)
        // The test's real size at 0.01 is 30/3432 (U >= 43), 0.87%: about 17 of 2000 expected.
        #expect(count == 15)
        #expect(count <= 30)
    }

    @Test("runs after 1.4 times slower: about 70% of pairs significant at 0.01")
    func power() {
        let count = Self.significantPairs(slowdown: 1.4, seed: 0x5052_4F42_4553_2021)
        // Jitter of ±30% hides a 40% slowdown in some pairs of 7 runs: the power is about 0.7, not near 1.
        #expect(count == 1405)
        #expect(count >= 1300)
    }
}

/// A seeded generator (SplitMix64), so that the simulated runs are the same every time.
private struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
