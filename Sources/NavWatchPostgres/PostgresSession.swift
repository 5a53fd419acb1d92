import Foundation
import Logging
import NavWatchSupport
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to a PostgreSQL server that runs one transaction at a
/// time (callers wait their turn, in order) and survives losing the server: a transaction that fails because the
/// connection dropped (or because PostgreSQL chose it as a deadlock or
/// serialisation victim) is run again on a new connection, with growing
/// pauses, for up to `retryLimit`. Every transaction given to it must be
/// safe to run twice (the commit of the first may have happened unseen).
/// A transaction's wait ends at the latest a second after its connection
/// closed, whatever PostgresNIO does with the queries left (`attempt`).
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
    /// The transaction attempt running now, and how to end its wait when its connection closes.
    private var running: (connection: PostgresConnection, end: @Sendable () -> Void)?

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
    func transaction<Value: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Value) async throws -> Value {
        // The actor is reentrant at every await: without turns, a second
        // caller's BEGIN would land inside the first caller's transaction.
        await takeTurn()
        defer { endTurn() }
        let deadline = ContinuousClock.now + retryLimit
        var pause = Duration.milliseconds(100)
        while true {
            do {
                return try await attempt(body, on: try await connected())
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

    /// Runs `body` once, in a transaction on `connection`; the wait for it
    /// ends a second after the connection closed, if it did not end before.
    ///
    /// PostgresNIO drops a query sent on a connection that has closed and
    /// never answers it: the ROLLBACK that `withTransaction` sends after the
    /// server ended the connection mid-transaction, for one. Awaited here, such
    /// a query would hold this turn, and every later one, for good. So the
    /// transaction runs in a task of its own; a query stranded that way is
    /// left waiting, on a connection nothing uses any more.
    private func attempt<Value: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Value,
                                          on connection: PostgresConnection) async throws -> Value {
        let answer = FirstAnswer<Result<Value, any Error>>()
        let logger = logger
        let transaction = Task {
            do {
                answer.answer(.success(try await connection.withTransaction(logger: logger) { try await body($0) }))
            } catch {
                answer.answer(.failure(error))
            }
        }
        running = (connection, { answer.answer(.failure(PostgresAddressError("the connection closed without an answer"))) })
        defer { running = nil }
        return try await withTaskCancellationHandler { await answer.wait() } onCancel: { transaction.cancel() }.get()
    }

    /// Ends the wait for the running attempt if it runs on `connection`, which closed a second ago.
    private func connectionClosed(_ connection: PostgresConnection) {
        if let running, running.connection === connection { running.end() }
    }

    private func connected() async throws -> PostgresConnection {
        if isClosed { throw PostgresAddressError("the crawl store was closed") }
        if let connection, !connection.isClosed { return connection }
        nextConnectionID += 1
        let connection = try await PostgresConnection.connect(configuration: configuration, id: nextConnectionID, logger: logger)
        // A second's grace: a transaction that ends by itself, with its
        // answer or its own error, is not cut short.
        connection.closeFuture.whenComplete { [weak self] _ in
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(1))
                await self?.connectionClosed(connection)
            }
        }
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

