import Foundation
import GRDB
import GRDBSQLite

/// One of GRDB's prepared statements driven with SQLite's own calls, for
/// the store's statements that run once per link (a page's link rows, its
/// new frontier entries, its skipped links' reports, the link graph read
/// back) and the others it executes: through GRDB's generic arguments and
/// rows, binding and decoding took most of the time of the link rows and
/// the graph, and a large part of the others'.
///
/// Made from a statement of the database it is used in, on that
/// database's thread; it starts reset, and values are bound in the
/// order of the statement's parameters, from the first.
struct RawStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    /// The parameter the next `bind` sets (SQLite counts from 1).
    private var parameter: Int32 = 1

    init(_ statement: Statement, in db: Database) {
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(handle)
    }

    /// Binds the next parameter to `value`: NULL for nil; an empty string
    /// as SQLite's empty text, never as NULL; every byte of it kept.
    mutating func bind(_ value: String?) {
        defer { parameter += 1 }
        guard var value else {
            sqlite3_bind_null(handle, parameter)
            return
        }
        // SQLite copies the bytes (its SQLITE_TRANSIENT, a macro Swift does not import).
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        value.withUTF8 { bytes in
            // An empty string has no address to give.
            guard let start = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_text(handle, parameter, "", 0, transient)
                return
            }
            start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                _ = sqlite3_bind_text(handle, parameter, $0, Int32(bytes.count), transient)
            }
        }
    }

    /// Binds the next parameter to `value`.
    mutating func bind(_ value: Int) {
        sqlite3_bind_int64(handle, parameter, Int64(value))
        parameter += 1
    }

    /// Binds the next parameter to `argument`, as GRDB would.
    mutating func bind(_ argument: SQLStatement.Argument) {
        switch argument {
        case .null:
            bind(nil as String?)
        case .integer(let value):
            bind(value)
        case .real(let value):
            sqlite3_bind_double(handle, parameter, value)
            parameter += 1
        case .text(let value):
            bind(value)
        case .texts:
            preconditionFailure("SQLite's dialect spells a list as one text argument each")
        }
    }

    /// Runs the statement to its next row: true at a row, false once it is done.
    ///
    /// - Throws: `DatabaseError`, with SQLite's code and message, and the statement.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                            sql: sqlite3_sql(handle).map { String(cString: $0) })
    }

    /// Makes the statement ready to run again, its values to be bound again from the first.
    mutating func reset() {
        sqlite3_reset(handle)
        parameter = 1
    }

    /// The row's value in `column` (from 0) as text; nil for NULL.
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// Whether the row's value in `column` is the text `known` (an empty text for NULL), compared without making a string.
    func text(_ column: Int32, is known: String) -> Bool {
        // The text first, then its length, as SQLite asks: the length is of the value as the text call left it.
        let bytes = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard known.utf8.count == count else { return false }
        return known.utf8.withContiguousStorageIfAvailable { knownBytes in
            guard let knownStart = knownBytes.baseAddress, let bytes else { return count == 0 }
            return memcmp(knownStart, bytes, count) == 0
        } ?? (text(column) ?? "" == known)
    }
}
