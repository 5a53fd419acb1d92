import NavWatch
@testable import NavWatchCLI
import Testing

@Suite("--device, --viewport, --user-agent: which wins")
struct EmulationOptionsTests {
    @Test("a device gives its viewport and User-Agent; --viewport and --user-agent given win over its own")
    func precedence() throws {
        let iPhone = try #require(Device.named("iPhone 13"))
        let device = try EmulationOptions.parse(["--device", "iphone 13"]).applied(to: WebViewConfiguration())
        #expect([device.viewportWidth, device.viewportHeight] == [390, 664] && device.userAgent == iPhone.userAgent)
        let overridden = try EmulationOptions.parse(["--device", "iPhone 13", "--viewport", "300x500", "--timezone", "Asia/Tokyo"])
            .applied(to: WebViewConfiguration(userAgent: "mine"))
        #expect([overridden.viewportWidth, overridden.viewportHeight] == [300, 500])
        #expect(overridden.userAgent == "mine" && overridden.timeZone == "Asia/Tokyo")
    }
}
