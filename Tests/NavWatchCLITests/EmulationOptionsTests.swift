import Foundation
import NavWatch
import NavWatchCrawler
@testable import NavWatchCLI
import Testing

@Suite("--device, --viewport, --user-agent, --locale, --color-scheme, --reduced-motion: which wins, and what reports say")
struct EmulationOptionsTests {
    @Test("a device gives its viewport and User-Agent; --viewport and --user-agent given win over its own")
    func precedence() throws {
        let iPhone = try #require(Device.named("iPhone 13"))
        let device = try EmulationOptions.parse(["--device", "iphone 13"]).applied(to: WebViewConfiguration())
        #expect([device.viewportWidth, device.viewportHeight] == [390, 664] as [Int] && device.userAgent == iPhone.userAgent)
        let overridden = try EmulationOptions.parse(["--device", "iPhone 13", "--viewport", "300x500", "--timezone", "Asia/Tokyo"])
            .applied(to: WebViewConfiguration(userAgent: "mine"))
        #expect([overridden.viewportWidth, overridden.viewportHeight] == [300, 500] as [Int])
        #expect(overridden.userAgent == "mine" && overridden.timeZone == "Asia/Tokyo")
    }

    @Test("a report names what was emulated, the device among it; nothing for a view of every default")
    func recordedInReports() throws {
        let defaults: PageLoadReport.EmulationInfo? = PageLoadReport.EmulationInfo(WebViewConfiguration())
        #expect(defaults == nil)
        let configuration = try EmulationOptions.parse(["--device", "iPhone 13", "--viewport", "300x500", "--timezone", "Asia/Tokyo"])
            .applied(to: WebViewConfiguration(userAgent: "mine"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let info = try #require(PageLoadReport.EmulationInfo(configuration))
        #expect(String(decoding: try encoder.encode(info), as: UTF8.self)
                    == #"{"device":"iPhone 13","device_scale_factor":3,"time_zone":"Asia/Tokyo","user_agent":"mine","viewport":"300x500"}"#)
        let zoneOnly = try #require(PageLoadReport.EmulationInfo(WebViewConfiguration(timeZone: "Europe/Berlin")))
        #expect(String(decoding: try encoder.encode(zoneOnly), as: UTF8.self) == #"{"time_zone":"Europe/Berlin","viewport":"1280x800"}"#)
        let preferences = try EmulationOptions.parse(["--locale", "de-DE", "--color-scheme", "dark", "--reduced-motion", "reduce"])
            .applied(to: WebViewConfiguration())
        #expect([preferences.locale, preferences.colorScheme?.rawValue, preferences.reducedMotion?.rawValue] == ["de-DE", "dark", "reduce"])
        let preferred = try #require(PageLoadReport.EmulationInfo(preferences))
        #expect(String(decoding: try encoder.encode(preferred), as: UTF8.self)
                    == #"{"color_scheme":"dark","locale":"de-DE","reduced_motion":"reduce","viewport":"1280x800"}"#)
    }

    @Test("a value the options cannot take is one line naming it",
          arguments: [
            (["--color-scheme", "sepia"], #"The value 'sepia' is invalid for '--color-scheme <scheme>'. Please provide one of 'light' and 'dark'."#),
            (["--reduced-motion", "less"], #"The value 'less' is invalid for '--reduced-motion <value>'. Please provide one of 'reduce' and 'no-preference'."#),
            (["--locale", "de_DE"], #"the locale "de_DE" is not a language tag (give one such as de-DE)"#),
          ])
    func badValues(_ arguments: [String], _ message: String) {
        do {
            _ = try EmulationOptions.parse(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(EmulationOptions.message(for: error) == message)
        }
    }
}
