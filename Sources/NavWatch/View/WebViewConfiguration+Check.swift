import Foundation

extension WebViewConfiguration {
    /// The largest viewport side `check()` lets through, in CSS pixels.
    public static let largestViewportSide = 16_384

    /// Throws `WebViewError.invalidConfiguration`, naming the setting and its
    /// value, when a setting is out of its range: a viewport side below 1 or
    /// over `largestViewportSide`, a `timeZone` the system's time zone
    /// database does not know. `WebView.init` checks its configuration.
    public func check() throws(WebViewError) {
        for (name, side) in [("width", viewportWidth), ("height", viewportHeight)]
        where !(1...Self.largestViewportSide).contains(side) {
            throw .invalidConfiguration("the viewport's \(name) \(side) is not between 1 and \(Self.largestViewportSide) pixels")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw .invalidConfiguration("the time zone \(timeZone.debugDescription) is unknown (give an IANA name, such as Europe/Berlin)")
        }
    }
}
