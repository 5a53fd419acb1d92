/// The reports of a crawl store, in the order stored, read a batch at a
/// time as the sequence is iterated (`SQLiteCrawlStore.storedReports`).
///
/// Memory holds one batch. Reports stored while the sequence is being read
/// (a crawl still running) may come at its end; on PostgreSQL one whose
/// transaction commits after a later report was read is not. An error
/// reading a batch ends the iteration with it.
public struct StoredReports: AsyncSequence, Sendable {
    /// The reports, in the order stored.
    public typealias Element = PageLoadReport

    let store: any CrawlStore
    let includingRequests: Bool
    let batchSize: Int

    /// An iterator from the first report stored.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self)
    }

    /// Reads the reports a batch at a time; use it from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let sequence: StoredReports
        private var batch: [StoredReport] = []
        private var next = 0
        /// The position of the last report read.
        private var position: Int64 = 0
        private var exhausted = false

        init(sequence: StoredReports) {
            self.sequence = sequence
        }

        /// The next report stored, reading the next batch when this one is used up; nil after the last.
        ///
        /// - Throws: the store's error reading a batch; the iteration ends with it.
        public mutating func next() async throws -> PageLoadReport? {
            if next == batch.count {
                guard !exhausted else { return nil }
                batch = try await sequence.store.reports(after: position, limit: sequence.batchSize,
                                                         includingRequests: sequence.includingRequests)
                next = 0
                exhausted = batch.count < sequence.batchSize
                guard let last = batch.last else { return nil }
                position = last.position
            }
            defer { next += 1 }
            return batch[next].report
        }
    }
}
