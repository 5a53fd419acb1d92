import Foundation
import Logging
import PostgresNIO

/// For tests: an empty database of its own on a server, dropped afterwards.
package enum PostgresScratchDatabase {
    /// Creates a database on the server `admin` points at; returns its address.
    package static func create(admin: String) async throws -> String {
        let name = "navwatch_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await run("CREATE DATABASE \(name)", admin: admin)
        var components = URLComponents(string: admin)!
        components.path = "/" + name
        return components.string!
    }

    /// Drops the database `address` names, ending its open connections.
    package static func drop(_ address: String, admin: String) async throws {
        let name = try PostgresAddress(address).database
        try await run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", admin: admin)
    }

    /// Ends every connection to `database` (as a server restart would); returns how many.
    package static func endConnections(to database: String, admin: String) async throws -> Int {
        try await run("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '\(database)' AND pid <> pg_backend_pid()
            """, admin: admin)
    }

    /// Runs `statement`; returns the number of rows it produced.
    @discardableResult
    private static func run(_ statement: String, admin: String) async throws -> Int {
        let logger = Logger(label: "navwatch.postgres.scratch")
        let connection = try await PostgresConnection.connect(
            configuration: try PostgresAddress(admin).connectionConfiguration(), id: 1, logger: logger)
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
            try await connection.close()
            return rows.count
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
