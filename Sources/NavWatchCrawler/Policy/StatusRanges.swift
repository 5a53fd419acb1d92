/// A set of HTTP statuses written as ranges: `200..=299, 403`, `200..300`.
package struct StatusRanges: Sendable, Equatable, CustomStringConvertible {
    package var ranges: [ClosedRange<Int>]

    /// Parses comma-separated statuses and ranges (`a..=b` inclusive, `a..b`
    /// exclusive); nil when a part is none of these or lies outside 100...999.
    package init?(_ text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = part.trimmingCharacters(in: .whitespaces)
            let range: ClosedRange<Int>
            if let dots = part.range(of: "..=") {
                guard let low = Int(part[..<dots.lowerBound]), let high = Int(part[dots.upperBound...]), low <= high else { return nil }
                range = low...high
            } else if let dots = part.range(of: "..") {
                guard let low = Int(part[..<dots.lowerBound]), let high = Int(part[dots.upperBound...]), low < high else { return nil }
                range = low...(high - 1)
            } else {
                guard let status = Int(part) else { return nil }
                range = status...status
            }
            guard range.lowerBound >= 100, range.upperBound <= 999 else { return nil }
            ranges.append(range)
        }
        self.ranges = ranges
    }

    package func contains(_ status: Int) -> Bool {
        ranges.contains { $0.contains(status) }
    }

    package var description: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)..=\($0.upperBound)" }.joined(separator: ", ")
    }
}
