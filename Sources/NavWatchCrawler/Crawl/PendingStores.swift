/// The stores a crawl worker has started and not yet awaited, oldest first.
/// A rendered page is stored when its late window closes, while its worker
/// loads the next pages: the worker keeps up to `limit` such stores running
/// and waits for the oldest beyond that, so a failing store stops it within
/// `limit` pages. With a limit of 0 each store is awaited as it is added:
/// the worker's next page waits for it.
struct PendingStores {
    private var tasks: [Task<Void, any Error>] = []
    private let limit: Int

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Adds `store`, then waits for the oldest stores while more than
    /// `limit` are pending; throws what a store awaited threw.
    mutating func add(_ store: Task<Void, any Error>) async throws {
        tasks.append(store)
        while tasks.count > limit {
            try await tasks.removeFirst().value
        }
    }

    /// Waits for every pending store, oldest first; throws the first error.
    mutating func drain() async throws {
        while !tasks.isEmpty {
            try await tasks.removeFirst().value
        }
    }
}
