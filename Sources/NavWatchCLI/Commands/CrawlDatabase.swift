import Foundation
import NavWatchCrawler
import NavWatchPostgres

/// Opens the crawl store that a `--db` value names: a `postgres://` address
/// (a crawl shared by workers) or the path of a SQLite file.
enum CrawlDatabase {
    /// Opens the store, runs `body` with it and closes it, also when `body` throws.
    static func with<Result>(_ db: String, mustExist: Bool = false,
                             _ body: (any CrawlStore) async throws -> Result) async throws -> Result {
        let store = try await open(db, mustExist: mustExist)
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

    /// - Parameter mustExist: for commands that read a crawl, a missing SQLite file is an error.
    static func open(_ db: String, mustExist: Bool = false) async throws(InputError) -> any CrawlStore {
        if PostgresAddress.isPostgres(db) {
            do {
                return try await PostgresCrawlStore(address: try PostgresAddress(db))
            } catch {
                throw InputError("\(error)")
            }
        }
        if mustExist && !FileManager.default.fileExists(atPath: db) { throw InputError("no crawl database at \(db)") }
        do {
            return try SQLiteCrawlStore(path: db)
        } catch {
            throw InputError("cannot open the crawl database \(shown(db)): \(InputError.reason(error))")
        }
    }
}
