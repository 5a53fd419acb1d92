import Foundation

extension Double {
    /// A time in milliseconds as every output of navwatch writes it for
    /// people: rounded to a whole millisecond, with its unit (`0 ms`,
    /// `734 ms`, `1534 ms`). Never traps: a time too large for an `Int`, or
    /// not finite, is written as `plainText` is.
    package var millisecondsText: String {
        (magnitude < 1e15 ? rounded().plainText : plainText) + " ms"
    }
}
