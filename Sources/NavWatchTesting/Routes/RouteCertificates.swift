import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// The certificates a router's proxy shows for the https hosts it
/// intercepts: one self-signed certificate per host, made when the host is
/// first asked for, with the TLS context that serves it.
final class RouteCertificates: Sendable {
    /// A host's certificate as PEM (for WebKit to accept) and the TLS context that shows it.
    struct Identity: Sendable {
        let certificatePEM: String
        let context: NIOSSLContext
    }

    private let identities = Mutex<[String: Identity]>([:])

    /// The identity for `host` (a name or an IP address, without brackets), made once.
    func identity(for host: String) throws -> Identity {
        if let known = identities.withLock({ $0[host] }) { return known }
        let made = try Self.make(for: host)
        return identities.withLock { identities in
            if let known = identities[host] { return known }
            identities[host] = made
            return made
        }
    }

    private static func make(for host: String) throws -> Identity {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName(host) }
        let alternativeName: GeneralName = if let address = IPAddress(host) {
            .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address.bytes)))
        } else {
            .dnsName(host)
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 24 * 3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([alternativeName])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: certificateKey)
        let pem = try certificate.serializeAsPEM().pemString
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)))
        // HTTP/1.1 only: the proxy reads requests as HTTP/1.1.
        configuration.applicationProtocols = ["http/1.1"]
        return Identity(certificatePEM: pem, context: try NIOSSLContext(configuration: configuration))
    }

    /// An IPv4 or IPv6 literal's bytes in network order.
    private struct IPAddress {
        let bytes: [UInt8]

        init?(_ text: String) {
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                bytes = withUnsafeBytes(of: &v4) { Array($0) }
            } else if inet_pton(AF_INET6, text, &v6) == 1 {
                bytes = withUnsafeBytes(of: &v6) { Array($0) }
            } else {
                return nil
            }
        }
    }
}
