extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a floating-point number.
    package var milliseconds: Double {
        seconds * 1000
    }
}
