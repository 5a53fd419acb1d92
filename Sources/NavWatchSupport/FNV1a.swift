/// The 64-bit FNV-1a hash: stable across runs and machines (unlike `Hasher`),
/// for names derived from content. Not for security.
package enum FNV1a {
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
