/// A device as Playwright's device list names and defines it (its
/// `deviceDescriptorsSource.json`): the viewport, User-Agent and scale
/// factor its pages get with `WebViewConfiguration.emulating(_:)`, and the
/// touch and mobile layout that WebKitGTK cannot give a view (so a page on
/// an emulated phone sees no touch points).
public struct Device: Sendable, Hashable {
    /// Playwright's name for it (`iPhone 13`).
    public let name: String
    /// The viewport's width in CSS pixels.
    public let viewportWidth: Int
    /// The viewport's height in CSS pixels.
    public let viewportHeight: Int
    /// The User-Agent its browser sends.
    public let userAgent: String
    /// What Playwright gives `devicePixelRatio`; `emulating(_:)` rounds it
    /// to a whole number (WebKitGTK scales by whole numbers: 2.625 is 3).
    public let deviceScaleFactor: Double
    /// Whether it lays pages out as a phone or tablet does (not emulated here).
    public let isMobile: Bool
    /// Whether it has a touch screen (not emulated here).
    public let hasTouch: Bool

    /// The devices `named(_:)` knows, phones and tablets first.
    public static let all: [Device] = {
        let safariMobile = "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.5 Mobile/15E148 Safari/604.1"
        let chrome = "Chrome/152.0.7977.54"
        return [
            Device(name: "iPhone 13", viewportWidth: 390, viewportHeight: 664,
                   userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) \(safariMobile)",
                   deviceScaleFactor: 3, isMobile: true, hasTouch: true),
            Device(name: "iPhone 15", viewportWidth: 393, viewportHeight: 659,
                   userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) \(safariMobile)",
                   deviceScaleFactor: 3, isMobile: true, hasTouch: true),
            Device(name: "Pixel 7", viewportWidth: 412, viewportHeight: 839,
                   userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) \(chrome) Mobile Safari/537.36",
                   deviceScaleFactor: 2.625, isMobile: true, hasTouch: true),
            Device(name: "iPad Pro 11", viewportWidth: 834, viewportHeight: 1194,
                   userAgent: "Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) \(safariMobile)",
                   deviceScaleFactor: 2, isMobile: true, hasTouch: true),
            Device(name: "Desktop Chrome", viewportWidth: 1280, viewportHeight: 720,
                   userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \(chrome) Safari/537.36",
                   deviceScaleFactor: 1, isMobile: false, hasTouch: false),
            Device(name: "Desktop Firefox", viewportWidth: 1280, viewportHeight: 720,
                   userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:153.0) Gecko/20100101 Firefox/153.0",
                   deviceScaleFactor: 1, isMobile: false, hasTouch: false),
            Device(name: "Desktop Safari", viewportWidth: 1280, viewportHeight: 720,
                   userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.5 Safari/605.1.15",
                   deviceScaleFactor: 2, isMobile: false, hasTouch: false),
        ]
    }()

    /// The device of `all` called `name` (letter case aside); nil for one it does not know.
    public static func named(_ name: String) -> Device? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }
}

extension WebViewConfiguration {
    /// This configuration with `device`'s viewport, User-Agent and scale
    /// factor (rounded to a whole number), and its name as `deviceName`.
    public func emulating(_ device: Device) -> WebViewConfiguration {
        var configuration = self
        (configuration.viewportWidth, configuration.viewportHeight) = (device.viewportWidth, device.viewportHeight)
        configuration.userAgent = device.userAgent
        configuration.deviceScaleFactor = max(1, Int(device.deviceScaleFactor.rounded()))
        configuration.deviceName = device.name
        return configuration
    }
}
