import NavWatchGuard
import Synchronization

/// The private-address guard that this process's crawls share. The first
/// crawl that needs it starts it; it then lasts as long as the process, so
/// that every crawl's views use one proxy address, and so one web context
/// and one network process, however many crawls run. Each crawl allows its
/// seeds' hosts for as long as it runs (`PrivateAddressGuard.allow`); while
/// two crawls run at once, each may reach the other's seed hosts.
enum SharedGuard {
    private static let starting = Mutex<Task<PrivateAddressGuard, any Error>?>(nil)

    /// The guard, started on first use; a start that failed is tried again
    /// by the next call.
    static func get() async throws -> PrivateAddressGuard {
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await PrivateAddressGuard.start(allowedHosts: []) }
            task = started
            return started
        }
        do {
            return try await task.value
        } catch {
            // Only this failed start is forgotten, never a newer one.
            starting.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }
}
