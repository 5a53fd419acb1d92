import Foundation
@testable import NavWatchCrawler
import Testing

@Suite("Timestamp: reports' ISO 8601 times without ICU")
struct TimestampTests {
    /// The formatter reports were written with before; one per test.
    private let reference: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    @Test("writes what ISO8601DateFormatter writes, milliseconds and all, and reads it back")
    func sameAsTheFormatter() {
        var generator = SplitMix(seed: 7)  // the same dates every run
        var dates = [0, 1_800_000_000.25, 1_800_000_000.9999, 1_800_000_000.0005, 951_782_400.5,  // 2000-02-29
                     1_767_225_599.999, 4_102_444_800.001].map(Date.init(timeIntervalSince1970:))
        for _ in 0..<2000 { dates.append(Date(timeIntervalSince1970: Double.random(in: 0...4_102_444_800, using: &generator))) }
        for date in dates {
            let text = Timestamp.string(date)
            #expect(text == reference.string(from: date), "\(date.timeIntervalSince1970)")
            #expect(Timestamp.date(text) == reference.date(from: text), "\(text)")
        }
    }

    @Test("reads other ISO 8601 forms as the formatter does, and refuses what is none")
    func otherForms() {
        // Other forms, and days the formatter rolls over (Feb 30, 24:00): its answer.
        for text in ["2026-11-24T04:53:00Z", "2026-11-24T04:53:00.25Z", "2026-11-24T05:53:00.250+01:00",
                     "2026-02-30T00:00:00.000Z", "2026-11-24T24:00:00.000Z", "2026-13-01T00:00:00.000Z"] {
            #expect(Timestamp.date(text) == reference.date(from: text), "\(text)")
        }
        #expect(Timestamp.date("2026-11-24T05:53:00.250+01:00") == Timestamp.date("2026-11-24T04:53:00.250Z"))
        for text in ["", "yesterday", "2026-11-24 04:53:00.000Z"] {
            #expect(Timestamp.date(text) == nil, "\(text)")
        }
    }
}

/// A seeded generator (SplitMix64), so a test's "random" inputs are the same every run.
private struct SplitMix: RandomNumberGenerator {
    var seed: UInt64
    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
