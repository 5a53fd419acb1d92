/// What happened at the private-address guard to a request for one URL,
/// when it did not simply go through.
package enum GuardVerdict: Sendable, Hashable {
    /// Refused with `403 Forbidden`: the host resolved to a non-package address.
    case blocked(BlockedRequest)
    /// Answered with `502 Bad Gateway`: the target could not be reached.
    case failed(ProxyFailure)
}
