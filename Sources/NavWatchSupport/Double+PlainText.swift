import Foundation

extension Double {
    /// The number as people write it: a whole number without decimals
    /// (`150`), any other with the shortest `%g` form (`1.6`, `0.25`).
    package var plainText: String {
        rounded() == self ? String(Int(self)) : String(format: "%g", self)
    }
}
