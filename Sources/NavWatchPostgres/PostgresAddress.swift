import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=...` address, as
/// libpq reads it: what the URL leaves out comes from the `PGHOST`, `PGPORT`,
/// `PGUSER`, `PGPASSWORD`, `PGDATABASE` and `PGSSLMODE` environment
/// variables, then from libpq's defaults (localhost, 5432, the login name,
/// a database named after the user, `sslmode=prefer`). A host that starts
/// with `/` is a folder holding the server's Unix socket.
public struct PostgresAddress: Sendable, CustomStringConvertible {
    /// The server's host name or address, or the folder of its Unix socket
    /// (starting with `/`); `localhost` by default.
    public var host: String
    /// The server's TCP port (for a socket folder, the number in the socket's
    /// name); 5432 by default.
    public var port: Int
    /// The role to connect as; by default `PGUSER`, else `USER` (the login
    /// name), else `postgres`.
    public var user: String
    /// The password, when the address or `PGPASSWORD` gives one. Never printed:
    /// `description` leaves it out.
    public var password: String?
    /// The database to connect to; by default `PGDATABASE`, else the user's name.
    public var database: String
    /// libpq's `sslmode`: `disable`, `allow`, `prefer` (the default), `require`,
    /// `verify-ca` or `verify-full`. `allow` and `prefer` use TLS when the
    /// server offers it, `require` insists on it without checking the
    /// certificate, `verify-ca` checks the certificate's chain and `verify-full`
    /// its host name too.
    public var sslMode: String

    /// Whether `text` names a PostgreSQL database rather than a file.
    package static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// `text` as navwatch prints it: a postgres:// address with its password
    /// replaced by `***` (also when the address does not parse); anything
    /// else unchanged.
    package static func redacting(_ text: String) -> String {
        guard isPostgres(text) else { return text }
        if var components = URLComponents(string: text) {
            if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
            if let redacted = components.string { return redacted }
        }
        // Unparseable: hide whatever stands between the user's colon and the last @ of the authority.
        return text.replacingOccurrences(of: #"^(postgres(?:ql)?://[^/:@]*):[^/]*@"#, with: "$1:***@",
                                         options: .regularExpression)
    }

    /// Parses `text`; what it leaves out comes from the environment, then libpq's defaults.
    ///
    /// - Throws: `PostgresAddressError` with a one-line message when `text` is not such an address.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresAddressError("\(Self.redacting(text)) is not a postgres:// address")
        }
        func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = nonEmpty(components.percentEncodedHost?.removingPercentEncoding) ?? nonEmpty(query["host"])
            ?? nonEmpty(environment["PGHOST"]) ?? "localhost"
        if let port = components.port {
            self.port = port
        } else if let text = nonEmpty(environment["PGPORT"]) {
            guard let port = Int(text), (1...65535).contains(port) else { throw PostgresAddressError("PGPORT=\(text) is not a port") }
            self.port = port
        } else {
            port = 5432
        }
        user = nonEmpty(components.percentEncodedUser?.removingPercentEncoding) ?? nonEmpty(environment["PGUSER"])
            ?? nonEmpty(environment["USER"]) ?? "postgres"
        password = nonEmpty(components.percentEncodedPassword?.removingPercentEncoding) ?? nonEmpty(environment["PGPASSWORD"])
        let path = String(components.percentEncodedPath.drop(while: { $0 == "/" })).removingPercentEncoding
        database = nonEmpty(path) ?? nonEmpty(environment["PGDATABASE"]) ?? user
        sslMode = nonEmpty(query["sslmode"]) ?? nonEmpty(environment["PGSSLMODE"]) ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw PostgresAddressError("sslmode=\(sslMode) is not one of disable, prefer, require, verify-ca, verify-full")
        }
    }

    /// The address without its password.
    public var description: String {
        host.hasPrefix("/") ? "postgres://\(user)@/\(database)?host=\(host)" : "postgres://\(user)@\(host):\(port)/\(database)"
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if host.hasPrefix("/") {
            return .init(unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        let tlsMode: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable":
            tlsMode = .disable
        case "allow", "prefer":
            tls.certificateVerification = .none
            tlsMode = .prefer(try NIOSSLContext(configuration: tls))
        case "require":
            tls.certificateVerification = .none
            tlsMode = .require(try NIOSSLContext(configuration: tls))
        default:
            tls.certificateVerification = sslMode == "verify-ca" ? .noHostnameVerification : .fullVerification
            tlsMode = .require(try NIOSSLContext(configuration: tls))
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: tlsMode)
    }
}

/// An address that cannot be used, with a one-line message for the user (the password hidden).
public struct PostgresAddressError: Error, CustomStringConvertible {
    /// The message: one line, the password hidden.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
