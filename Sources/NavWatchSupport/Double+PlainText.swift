import Foundation

extension Double {
    /// The number as people write it: a whole number without decimals
    /// (`150`), any other with the shortest `%g` form (`1.6`, `0.25`,
    /// `1e+20`, `inf`, `nan`). Never traps: only a whole number of less
    /// than 10^15 is converted to an `Int`.
    package var plainText: String {
        magnitude < 1e15 && rounded() == self ? String(Int(self)) : String(format: "%g", self)
    }
}
