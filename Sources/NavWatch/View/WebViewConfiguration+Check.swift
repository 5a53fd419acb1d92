import Foundation

extension WebViewConfiguration {
    /// The largest viewport side `check()` lets through, in CSS pixels.
    public static let largestViewportSide = 16_384

    /// The largest `deviceScaleFactor` `check()` lets through.
    public static let largestScaleFactor = 4

    /// Throws `WebViewError.invalidConfiguration`, naming the setting and its
    /// value, when a setting is out of its range: a viewport side below 1 or
    /// over `largestViewportSide`, a `deviceScaleFactor` below 1 or over
    /// `largestScaleFactor`, a `timeZone` the system's time zone database
    /// does not know, a `locale` that is not a language tag.
    /// `WebView.init` checks its configuration.
    public func check() throws(WebViewError) {
        for (name, side) in [("width", viewportWidth), ("height", viewportHeight)]
        where !(1...Self.largestViewportSide).contains(side) {
            throw .invalidConfiguration("the viewport's \(name) \(side) is not between 1 and \(Self.largestViewportSide) pixels")
        }
        if !(1...Self.largestScaleFactor).contains(deviceScaleFactor) {
            throw .invalidConfiguration("the device scale factor \(deviceScaleFactor) is not a whole number from 1 to \(Self.largestScaleFactor)")
        }
        if let locale, locale.wholeMatch(of: /[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*/) == nil {
            throw .invalidConfiguration("the locale \(locale.debugDescription) is not a language tag (give one such as de-DE)")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw .invalidConfiguration("the time zone \(timeZone.debugDescription) is unknown (give an IANA name, such as Europe/Berlin)")
        }
    }
}
