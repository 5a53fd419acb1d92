import Foundation
import NavWatchGuard
import NavWatchSupport

/// The network a crawl's or watcher's pages load over: a round-trip time
/// added to every connection and request, and a download and upload
/// bandwidth each view's connections share (as one phone's link is).
///
/// The named profiles are WebPageTest's connectivity profiles
/// (`www/settings/connectivity.ini.sample` in WPO-Foundation/webpagetest),
/// under the same names; `custom` ones are written
/// `latency=150ms,down=1.6Mbps,up=768kbps`, latency meaning the round trip.
/// A profile adds delay and limits bandwidth; it loses no packets and does
/// not model TCP slow start or DNS lookups.
///
/// Encodes as `{"name": "3GFast", "round_trip_ms": 150, "down_kbps": 1600, "up_kbps": 768}`.
public struct NetworkProfile: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The preset's name, or the custom form it was written in.
    public var name: String
    /// The round-trip time added, in milliseconds.
    public var roundTripMs: Double
    /// Download bandwidth in kilobits (1000 bits) per second; nil: no limit.
    public var downKbps: Double?
    /// Upload bandwidth in kilobits per second; nil: no limit.
    public var upKbps: Double?

    /// A profile with these figures, called `name`.
    public init(name: String, roundTripMs: Double, downKbps: Double?, upKbps: Double?) {
        self.name = name
        self.roundTripMs = roundTripMs
        self.downKbps = downKbps
        self.upKbps = upKbps
    }

    /// WebPageTest's connectivity profiles, slowest first.
    public static let presets: [NetworkProfile] = [
        NetworkProfile(name: "Dial", roundTripMs: 120, downKbps: 49, upKbps: 30),
        NetworkProfile(name: "Edge", roundTripMs: 840, downKbps: 240, upKbps: 200),
        NetworkProfile(name: "2G", roundTripMs: 800, downKbps: 280, upKbps: 256),
        NetworkProfile(name: "3GSlow", roundTripMs: 400, downKbps: 400, upKbps: 400),
        NetworkProfile(name: "3G", roundTripMs: 300, downKbps: 1600, upKbps: 768),
        NetworkProfile(name: "3GFast", roundTripMs: 150, downKbps: 1600, upKbps: 768),
        NetworkProfile(name: "DSL", roundTripMs: 50, downKbps: 1500, upKbps: 384),
        NetworkProfile(name: "Cable", roundTripMs: 28, downKbps: 5000, upKbps: 1000),
        NetworkProfile(name: "4G", roundTripMs: 170, downKbps: 9000, upKbps: 9000),
        NetworkProfile(name: "LTE", roundTripMs: 70, downKbps: 12000, upKbps: 12000),
        NetworkProfile(name: "FIOS", roundTripMs: 4, downKbps: 20000, upKbps: 5000),
    ]

    /// A preset by its name (any case), or the custom form
    /// `latency=150ms,down=1.6Mbps,up=768kbps` (keys in any order, each at
    /// most once, `latency` required; `ms` or `s`; `bps`, `kbps`, `Mbps`,
    /// `Gbps`, or the same with `bit/s`): a round trip of 0 to 60 s, a
    /// bandwidth of 1 kbit/s to 100 Gbit/s.
    ///
    /// - Throws: `NetworkProfileError`, a one-line reason.
    public init(parsing text: String) throws(NetworkProfileError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let preset = Self.presets.first(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            self = preset
            return
        }
        guard trimmed.contains("=") else {
            throw NetworkProfileError("\(text) is not a network profile: one of \(Self.presets.map(\.name).joined(separator: ", ")), "
                                      + "or latency=150ms,down=1.6Mbps,up=768kbps")
        }
        var latency: Double?, down: Double?, up: Double?
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw NetworkProfileError("\(part) is not key=value (latency, down or up)") }
            let (key, value) = (pair[0].lowercased(), pair[1])
            switch key {
            case "latency", "rtt":
                guard latency == nil else { throw NetworkProfileError("latency is given twice") }
                latency = try Self.milliseconds(value)
            case "down":
                guard down == nil else { throw NetworkProfileError("down is given twice") }
                down = try Self.kilobits(value)
            case "up":
                guard up == nil else { throw NetworkProfileError("up is given twice") }
                up = try Self.kilobits(value)
            default:
                throw NetworkProfileError("\(pair[0]) is not a network key (latency, down or up)")
            }
        }
        guard let latency else { throw NetworkProfileError("a custom network profile needs latency=, such as latency=150ms") }
        self.init(name: "custom", roundTripMs: latency, downKbps: down, upKbps: up)
        name = Self.customName(self)
    }

    /// `3GFast (1.6 Mbit/s down, 768 kbit/s up, 150 ms round trip)`.
    public var description: String {
        let figures = [downKbps.map { "\(Self.rate($0)) down" }, upKbps.map { "\(Self.rate($0)) up" },
                       "\(roundTripMs.plainText) ms round trip"].compactMap { $0 }
        return "\(name) (\(figures.joined(separator: ", ")))"
    }

    enum CodingKeys: String, CodingKey {
        case name
        case roundTripMs = "round_trip_ms"
        case downKbps = "down_kbps"
        case upKbps = "up_kbps"
    }

    // MARK: The custom form

    private static func customName(_ profile: NetworkProfile) -> String {
        var parts = ["latency=\(profile.roundTripMs.plainText)ms"]
        if let down = profile.downKbps { parts.append("down=\(down.plainText)kbps") }
        if let up = profile.upKbps { parts.append("up=\(up.plainText)kbps") }
        return parts.joined(separator: ",")
    }

    private static func milliseconds(_ text: String) throws(NetworkProfileError) -> Double {
        let lower = text.lowercased()
        let (digits, scale): (Substring, Double) =
            lower.hasSuffix("ms") ? (lower.dropLast(2), 1) : lower.hasSuffix("s") ? (lower.dropLast(1), 1000) : (lower[...], 1)
        guard let value = Double(digits.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0, value * scale <= 60_000 else {
            throw NetworkProfileError("latency=\(text) is not a round trip such as 150ms (0 to 60 s)")
        }
        return value * scale
    }

    private static let rateUnits: [(String, Double)] = [
        ("gbit/s", 1e6), ("mbit/s", 1e3), ("kbit/s", 1), ("bit/s", 1e-3),
        ("gbps", 1e6), ("mbps", 1e3), ("kbps", 1), ("bps", 1e-3),
    ]

    /// The widest bandwidth a profile takes: 100 Gbit/s.
    private static let maximumKbps = 1e8

    private static func kilobits(_ text: String) throws(NetworkProfileError) -> Double {
        let lower = text.lowercased()
        guard let (unit, scale) = rateUnits.first(where: { lower.hasSuffix($0.0) }),
              let value = Double(lower.dropLast(unit.count).trimmingCharacters(in: .whitespaces)),
              value.isFinite, value > 0, value * scale >= 1, value * scale <= maximumKbps else {
            throw NetworkProfileError("\(text) is not a bandwidth such as 1.6Mbps or 768kbps (1kbps to 100Gbps)")
        }
        return value * scale
    }

    private static func rate(_ kbps: Double) -> String {
        kbps >= 1000 ? "\((kbps / 1000).plainText) Mbit/s" : "\(kbps.plainText) kbit/s"
    }
}

/// Why a text is not a network profile, in one line.
public struct NetworkProfileError: Error, CustomStringConvertible, Sendable {
    /// The reason, one line, such as `5G is not a network profile: one of ...`.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension NetworkProfile {
    /// What the guard makes of it.
    package var linkShape: LinkShape {
        LinkShape(roundTrip: .nanoseconds(Int64((roundTripMs * 1e6).rounded())),
                  downBytesPerSecond: downKbps.map { $0 * 1000 / 8 }, upBytesPerSecond: upKbps.map { $0 * 1000 / 8 })
    }
}
