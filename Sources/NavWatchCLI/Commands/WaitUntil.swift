import ArgumentParser

/// When a navigation counts as done and the next URL may start.
package enum WaitUntil: String, Sendable, CaseIterable {
    /// The main response committed.
    case commit
    /// The page finished (or failed).
    case finish
    /// Finished, then its late window closed (`LateWindow`): `--settle`
    /// milliseconds with no network activity of the page's own, within ten
    /// times that after the finish, as a crawl's report covers.
    case idle
}

/// `--wait-until`: a `WaitUntil` by its name.
package struct WaitUntilArgument: ExpressibleByArgument, Sendable {
    let value: WaitUntil

    package init?(argument: String) {
        guard let value = WaitUntil(rawValue: argument) else { return nil }
        self.value = value
    }

    package static let idle = WaitUntilArgument(argument: "idle")!
    package static var allValueStrings: [String] { WaitUntil.allCases.map(\.rawValue) }
    package var defaultValueDescription: String { value.rawValue }
}
