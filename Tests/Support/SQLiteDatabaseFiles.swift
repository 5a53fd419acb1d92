import Foundation

/// Removes the SQLite database at `path` with its write-ahead log and shared
/// memory files (`-wal`, `-shm`); a file that is not there is no error.
package func removeSQLiteDatabase(atPath path: String) {
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}
