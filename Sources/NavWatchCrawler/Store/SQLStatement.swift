/// One SQL statement of the crawl stores, written once for every database:
/// its text with its arguments in place, as in a `PostgresQuery`. A store
/// runs it as its `SQLDialect` spells it (`SQLDialect.spell`).
///
/// - `\(value)` (an `Int`, a `Double`, a `String` or nil) is an argument,
///   never text: it becomes a placeholder.
/// - `\(oneOf: strings)` is a membership test: `IN (?, ?, …)` in SQLite,
///   `= ANY($n)` (one array argument) in PostgreSQL.
/// - `\(sql)` of an `SQLText` (a table's name, a dialect's keyword) and
///   `\(statement)` of another `SQLStatement` (a clause) are text written by
///   the program.
package struct SQLStatement: Sendable, ExpressibleByStringInterpolation {
    /// A value bound to a placeholder.
    package enum Argument: Sendable, Equatable {
        case null
        case integer(Int)
        case real(Double)
        case text(String)
        /// A list of strings, bound as one array (PostgreSQL's `= ANY`).
        case texts([String])
    }

    fileprivate enum Part: Sendable {
        case text(String)
        case argument(Argument)
        case oneOf([String])
    }

    fileprivate var parts: [Part]

    package init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    package init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []

        package init(literalCapacity: Int, interpolationCount: Int) {}

        package mutating func appendLiteral(_ literal: String) { parts.append(.text(literal)) }

        package mutating func appendInterpolation(_ value: Int) { parts.append(.argument(.integer(value))) }

        package mutating func appendInterpolation(_ value: Double) { parts.append(.argument(.real(value))) }

        package mutating func appendInterpolation(_ value: String?) { parts.append(.argument(value.map { .text($0) } ?? .null)) }

        package mutating func appendInterpolation(oneOf values: [String]) { parts.append(.oneOf(values)) }

        package mutating func appendInterpolation(_ text: SQLText) { parts.append(.text(text.sql)) }

        package mutating func appendInterpolation(_ clause: SQLStatement) { parts += clause.parts }
    }
}

/// SQL written by the program (a table's name, a keyword), never a value.
package struct SQLText: Sendable, ExpressibleByStringLiteral {
    package var sql: String

    package init(_ sql: String) { self.sql = sql }

    package init(stringLiteral value: String) { sql = value }

    /// `IN ('a', 'b', …)`: a membership test in the raw values of `cases`,
    /// written into the text (they are the program's names, not values
    /// read from a page). The cases are those of `Case` that `isMember` keeps.
    package init<Case: CaseIterable & RawRepresentable>(in _: Case.Type, where isMember: (Case) -> Bool)
    where Case.RawValue == String {
        sql = "IN (" + Case.allCases.filter(isMember).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }
}

/// What SQLite and PostgreSQL spell differently in the statements the crawl
/// stores share (`FrontierSQL`); everything else in them is written once.
package struct SQLDialect: Sendable {
    /// How a membership test in a list of strings is bound.
    package enum ListBinding: Sendable {
        /// `IN (?, ?, …)`, one argument per string.
        case eachString
        /// `= ANY($n)`, the list as one array argument.
        case array
    }

    /// What the tables' names start with.
    package var tablePrefix: String
    /// The placeholder of the `n`-th argument, counted from 1.
    package var placeholder: @Sendable (_ n: Int) -> String
    package var listBinding: ListBinding
    /// The function that returns the greatest of its arguments.
    package var greatest: SQLText
    /// What a `SELECT` ends with to lock the rows it returns for the
    /// transaction, passing over rows that other transactions hold.
    package var lockSkippingLocked: SQLText
    /// What a `SELECT` ends with to lock the rows it returns for the
    /// transaction, waiting for them.
    package var lock: SQLText

    /// The crawl database of `SQLiteCrawlStore`: one writer at a time, so
    /// nothing is locked row by row.
    package static let sqlite = SQLDialect(tablePrefix: "", placeholder: { _ in "?" }, listBinding: .eachString,
                                           greatest: "MAX", lockSkippingLocked: "", lock: "")

    /// The shared database of `PostgresCrawlStore`, its tables named `navwatch_*`.
    package static let postgreSQL = SQLDialect(tablePrefix: "navwatch_", placeholder: { "$\($0)" }, listBinding: .array,
                                               greatest: "GREATEST", lockSkippingLocked: "FOR UPDATE SKIP LOCKED",
                                               lock: "FOR UPDATE")

    /// The name of the crawl's table `name` (`frontier`, `hosts`, …).
    package func table(_ name: String) -> SQLText {
        SQLText(tablePrefix + name)
    }

    /// `statement`'s text, with placeholders, and its arguments in their order.
    package func spell(_ statement: SQLStatement) -> (sql: String, arguments: [SQLStatement.Argument]) {
        var sql = "", arguments: [SQLStatement.Argument] = []
        func bind(_ argument: SQLStatement.Argument) -> String {
            arguments.append(argument)
            return placeholder(arguments.count)
        }
        for part in statement.parts {
            switch part {
            case .text(let text):
                sql += text
            case .argument(let argument):
                sql += bind(argument)
            case .oneOf(let strings):
                switch listBinding {
                case .eachString: sql += "IN (" + strings.map { bind(.text($0)) }.joined(separator: ", ") + ")"
                case .array: sql += "= ANY(" + bind(.texts(strings)) + ")"
                }
            }
        }
        return (sql, arguments)
    }
}
