import ArgumentParser

/// A length of time on the command line: a number with `s`, `m`, `h` or
/// `d` after it (`90s`, `15m`, `12h`, `7d`), or a number of seconds.
package struct DurationArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    /// The longest wait a `--timeout`, `--lease` or `--extract-timeout` takes,
    /// in seconds: a day (its milliseconds are converted to an `Int64`).
    static let longestWait = 86_400.0

    /// Throws the one-line complaint about `seconds`, given to `option`,
    /// unless it is a wait taken: more than 0, `longestWait` at most.
    static func validateWait(_ seconds: Double, option: String) throws {
        guard seconds > 0, seconds <= longestWait else {
            throw ValidationError("\(option) must be a positive number of seconds, 86400 (a day) at most, not \(seconds)")
        }
    }

    package let seconds: Double
    package let description: String

    package init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(argument), unit = 1.0
        if let last = argument.last, let multiplier = units[last] {
            number = number.dropLast()
            unit = multiplier
        }
        guard let value = Double(number), value >= 0, (value * unit).isFinite else { return nil }
        seconds = value * unit
        description = argument
    }
}
