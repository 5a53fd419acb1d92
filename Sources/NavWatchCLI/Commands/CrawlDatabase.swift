import Foundation
import NavWatchCrawler
import NavWatchPostgres

/// Opens the crawl store that a `--db` value names: a `postgres://` address
/// (a crawl shared by workers) or the path of a SQLite file.
enum CrawlDatabase {
    /// Opens the store, runs `body` with it and closes it, also when `body` throws.
    static func with<Result>(_ db: String, reading: Bool = false,
                             _ body: (any CrawlStore) async throws -> Result) async throws -> Result {
        let store = try await open(db, reading: reading)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// `db` as navwatch prints it: a postgres:// address without its password.
    static func shown(_ db: String) -> String {
        PostgresAddress.redacting(db)
    }

    /// - Parameter reading: for commands that read a crawl (`links`, `report`,
    ///   `export`, `status`, `budgets`, `diff`, `crawl --baseline`): a SQLite
    ///   file is opened read-only, and one that is missing, empty, not SQLite
    ///   or not a crawl is an error, the file left as it was. Otherwise (a
    ///   crawl's own `--db`) the file is created or continued.
    static func open(_ db: String, reading: Bool = false) async throws(InputError) -> any CrawlStore {
        if PostgresAddress.isPostgres(db) {
            do {
                return try await PostgresCrawlStore(address: try PostgresAddress(db))
            } catch {
                throw InputError("\(error)")
            }
        }
        if reading && !FileManager.default.fileExists(atPath: db) { throw InputError("no crawl database at \(db)") }
        do {
            return try reading ? SQLiteCrawlStore(readingAt: db) : SQLiteCrawlStore(path: db)
        } catch let error as CrawlFileError {
            throw InputError(error.description)
        } catch {
            throw InputError("cannot open the crawl database \(shown(db)): \(InputError.reason(error))")
        }
    }
}
