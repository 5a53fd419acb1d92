import CGumbo

extension GumboVector {
    /// The value of the attribute `name` (lower case) in this vector of an element's attributes.
    mutating func attribute(_ name: String) -> String? {
        gumbo_get_attribute(&self, name).map { String(cString: $0.pointee.value) }
    }
}
