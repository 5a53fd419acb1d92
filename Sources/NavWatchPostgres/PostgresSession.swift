import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to a PostgreSQL server that runs one transaction at a
/// time (callers wait their turn, in order) and survives losing the server: a transaction that fails because the
/// connection dropped (or because PostgreSQL chose it as a deadlock or
/// serialisation victim) is run again on a new connection, with growing
/// pauses, for up to `retryLimit`. Every transaction given to it must be
/// safe to run twice (the commit of the first may have happened unseen).
actor PostgresSession {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let retryLimit: Duration
    private var connection: PostgresConnection?
    private var nextConnectionID = 0
    /// A transaction is running; the continuations wait for their turn.
    private var busy = false
    private var turns: [CheckedContinuation<Void, Never>] = []
    private var isClosed = false

    init(configuration: PostgresConnection.Configuration, logger: Logger, retryLimit: Duration = .seconds(120)) {
        self.configuration = configuration
        self.logger = logger
        self.retryLimit = retryLimit
    }

    /// Connects once, without retrying, so that a wrong address or password fails at once.
    func connect() async throws {
        _ = try await connected()
    }

    /// Closes the connection once the running transaction is over; later transactions fail.
    func close() async {
        await takeTurn()
        defer { endTurn() }
        isClosed = true
        try? await connection?.close()
        connection = nil
    }

    private func takeTurn() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { turns.append($0) }
    }

    private func endTurn() {
        if turns.isEmpty { busy = false } else { turns.removeFirst().resume() }
    }

    /// Runs `body` in a transaction (BEGIN ... COMMIT, ROLLBACK when it throws).
    @discardableResult
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        // The actor is reentrant at every await: without turns, a second
        // caller's BEGIN would land inside the first caller's transaction.
        await takeTurn()
        defer { endTurn() }
        let deadline = ContinuousClock.now + retryLimit
        var pause = Duration.milliseconds(100)
        while true {
            do {
                let connection = try await connected()
                return try await connection.withTransaction(logger: logger) { try await body($0) }
            } catch {
                guard !isClosed, isTransient(error), ContinuousClock.now + pause < deadline else { throw error }
                logger.warning("PostgreSQL: \(Self.describe(error)); trying again in \(pause)")
                if connection?.isClosed ?? true {
                    try? await connection?.close()
                    connection = nil
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    private func connected() async throws -> PostgresConnection {
        if isClosed { throw PostgresAddressError("the crawl store was closed") }
        if let connection, !connection.isClosed { return connection }
        nextConnectionID += 1
        let connection = try await PostgresConnection.connect(configuration: configuration, id: nextConnectionID, logger: logger)
        self.connection = connection
        return connection
    }

    /// Lost connections, refused connections, deadlocks and serialisation failures.
    private func isTransient(_ error: any Error) -> Bool {
        if connection == nil || connection?.isClosed == true { return !Self.isPermanent(error) }
        for error in Self.underlying(error) {
            guard let error = error as? PSQLError else { continue }
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
                return true
            case .server:
                if let state = error.serverInfo?[.sqlState], ["40001", "40P01", "57P01", "57P02", "57P03"].contains(state) {
                    return true
                }
            default: break
            }
        }
        return false
    }

    /// Errors that no retry can mend: authentication, a missing database or role.
    private static func isPermanent(_ error: any Error) -> Bool {
        underlying(error).contains { error in
            guard let error = error as? PSQLError else { return false }
            if error.code == .server, let state = error.serverInfo?[.sqlState] {
                return state.hasPrefix("28") || state == "3D000"
            }
            return [.unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError, .sslUnsupported].contains(error.code)
        }
    }

    /// The error and the errors a transaction error wraps.
    private static func underlying(_ error: any Error) -> [any Error] {
        guard let transaction = error as? PostgresTransactionError else { return [error] }
        return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
            .compactMap { $0 }
    }

    /// One line for a log or an error message: the server's message when there is one.
    static func describe(_ error: any Error) -> String {
        for error in underlying(error) {
            if let error = error as? PSQLError {
                if let message = error.serverInfo?[.message] { return message }
                if let underlying = error.underlying, !(underlying is PSQLError) { return describe(underlying) }
                return "the connection failed (\(error.code))"
            }
            if let error = error as? NIOConnectionError, let failure = error.connectionErrors.first {
                return describe(failure.error)
            }
            if let error = error as? IOError {
                return String(cString: strerror(error.errnoCode)).lowercased()
            }
        }
        return "\(error)"
    }
}

