import Foundation
@testable import NavWatchCrawler
import NavWatchGuard
import Testing

@Suite("Network profiles: WebPageTest's presets, the custom form, and what the guard makes of them")
struct NetworkProfileTests {
    @Test("a preset by its name in any case, with WebPageTest's figures")
    func presets() throws {
        let fast = try NetworkProfile(parsing: "3gfast")
        #expect(fast == NetworkProfile(name: "3GFast", roundTripMs: 150, downKbps: 1600, upKbps: 768))
        #expect(fast.description == "3GFast (1.6 Mbit/s down, 768 kbit/s up, 150 ms round trip)")
        #expect(NetworkProfile.presets.map(\.name) == ["Dial", "Edge", "2G", "3GSlow", "3G", "3GFast", "DSL", "Cable", "4G", "LTE", "FIOS"])
        #expect(try NetworkProfile(parsing: " Cable ").downKbps == 5000)
        #expect(fast.linkShape == LinkShape(roundTrip: .milliseconds(150), downBytesPerSecond: 200_000, upBytesPerSecond: 96_000))
    }

    @Test("the custom form: latency is the round trip, units of time and rate, keys in any order", arguments: [
        ("latency=150ms,down=1.6Mbps,up=768kbps", "latency=150ms,down=1600kbps,up=768kbps", 150.0, 1600.0, 768.0),
        ("up=1Gbit/s, latency=0.2s", "latency=200ms,up=1000000kbps", 200, nil, 1_000_000),
        ("rtt=40", "latency=40ms", 40, nil, nil),
        ("latency=0ms,down=56000bps", "latency=0ms,down=56kbps", 0, 56, nil),
        ("latency=60s,down=100Gbps", "latency=60000ms,down=100000000kbps", 60_000, 100_000_000, nil),
    ] as [(String, String, Double, Double?, Double?)])
    func custom(text: String, name: String, roundTrip: Double, down: Double?, up: Double?) throws {
        #expect(try NetworkProfile(parsing: text) == NetworkProfile(name: name, roundTripMs: roundTrip, downKbps: down, upKbps: up))
    }

    @Test("what is not a profile is one line saying why", arguments: [
        ("5G", "5G is not a network profile: one of Dial, Edge, 2G, 3GSlow, 3G, 3GFast, DSL, Cable, 4G, LTE, FIOS, or latency=150ms,down=1.6Mbps,up=768kbps"),
        ("down=1Mbps", "a custom network profile needs latency=, such as latency=150ms"),
        ("latency=10ms,latency=20ms", "latency is given twice"),
        ("latency=10ms,speed=1Mbps", "speed is not a network key (latency, down or up)"),
        ("latency=10ms,down", "down is not key=value (latency, down or up)"),
        ("latency=-5ms", "latency=-5ms is not a round trip such as 150ms (0 to 60 s)"),
        ("latency=10ms,down=0Mbps", "0Mbps is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=10ms,down=fast", "fast is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=10ms,up=500bps", "500bps is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=5ms,down=2e13Gbps", "2e13Gbps is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=5ms,up=1e16Gbps", "1e16Gbps is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=5ms,down=100.001Gbps", "100.001Gbps is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)"),
        ("latency=1e300s", "latency=1e300s is not a round trip such as 150ms (0 to 60 s)"),
    ])
    func errors(text: String, message: String) {
        #expect(throws: NetworkProfileError.self) { try NetworkProfile(parsing: text) }
        do { _ = try NetworkProfile(parsing: text) } catch { #expect(error.description == message) }
    }

    @Test("reports encode it with snake_case keys and read it back")
    func coding() throws {
        let profile = try NetworkProfile(parsing: "latency=150ms,down=1.6Mbps")
        let json = String(decoding: try JSONEncoder.sorted.encode(profile), as: UTF8.self)
        #expect(json == #"{"down_kbps":1600,"name":"latency=150ms,down=1600kbps","round_trip_ms":150}"#)
        #expect(try JSONDecoder().decode(NetworkProfile.self, from: Data(json.utf8)) == profile)
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
