import ArgumentParser

/// When a navigation counts as done and the next URL may start.
package enum WaitUntil: String, Sendable, CaseIterable {
    /// The main response committed.
    case commit
    /// The page finished (or failed).
    case finish
    /// Finished, then no network activity for 500 ms (capped by the timeout).
    case idle
}

/// `--wait-until`: a `WaitUntil` by its name.
package struct WaitUntilArgument: ExpressibleByArgument, Sendable {
    let value: WaitUntil

    package init?(argument: String) {
        guard let value = WaitUntil(rawValue: argument) else { return nil }
        self.value = value
    }

    package static let finish = WaitUntilArgument(argument: "finish")!
    package static var allValueStrings: [String] { WaitUntil.allCases.map(\.rawValue) }
    package var defaultValueDescription: String { value.rawValue }
}
