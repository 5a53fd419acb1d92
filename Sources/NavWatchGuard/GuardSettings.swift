import NIOCore
import NIOPosix

/// What every connection of one guard shares.
struct GuardSettings: Sendable {
    /// Whether non-public addresses are refused (but for `allowance`).
    var blocksPrivateAddresses = true
    var allowance: HostAllowance
    var connectTimeout: TimeAmount
    var headTimeout: TimeAmount
    /// How long an error answer waits for the client to finish sending
    /// before the connection is closed regardless.
    var lingerTimeout: TimeAmount = .seconds(2)
    var resolverPool: NIOThreadPool
    var log: GuardLog
    /// The network every connection behaves as if it crossed; nil: none.
    var link: SharedLink?
}
