import Foundation

/// Which of a crawler's workers ask its store for the next entry to lease,
/// when the store is not shared: every question is a write, and when
/// entries are scarce most would be answered that nothing is ready.
///
/// Until the store first answers that nothing is ready, every worker asks.
/// From then on a worker asks only with a permit: one for each link added
/// to the frontier (so a page that adds many lets every worker ask at
/// once), one for any other change (a page finished, which may free its
/// host), and one once the time the store named for something to be ready
/// has come, or `poll` after the last question (in case nothing else
/// comes). Another answer that nothing is ready takes the permits left.
struct LeaseGate {
    /// What a worker is to do now.
    enum Turn: Equatable {
        /// Ask the store.
        case ask
        /// Wait until the frontier changes, or until `until` (when something may be ready, or `poll` after the last question), whichever is first.
        case wait(until: Date)
    }

    /// The questions the workers may put before the next answer that nothing is ready; nil while unlimited.
    private(set) var permits: Int?
    /// When the store said something may be ready (a host's pause ends, a retry is due, a lease expires).
    private var readyAt: Date?
    private var lastQuestion = Date.distantPast
    /// How long after its last question a worker asks again, in seconds, whatever happens meanwhile.
    let poll: TimeInterval

    init(poll: TimeInterval = 1) {
        self.poll = poll
    }

    /// Whether a worker asks now (taking a permit) or waits.
    mutating func turn(now: Date) -> Turn {
        if var left = permits {
            if left == 0, (readyAt.map { $0 <= now } ?? false) || now.timeIntervalSince(lastQuestion) >= poll {
                left = 1
                readyAt = nil
            }
            guard left > 0 else { return .wait(until: min(readyAt ?? .distantFuture, lastQuestion.addingTimeInterval(poll))) }
            permits = left - 1
        }
        lastQuestion = now
        return .ask
    }

    /// The store answered that nothing is ready, until `until` at the
    /// latest. An answer to a question asked before the frontier last
    /// changed (`stale`) takes no permits: the change gave its own.
    mutating func nothingReady(until: Date?, stale: Bool) {
        guard !stale else { return }
        permits = 0
        readyAt = until
    }

    /// The frontier changed: `added` links were added to it (a page's, or
    /// links offered early), or none (a page finished, an entry was put back).
    mutating func frontierChanged(added: Int) {
        permits = permits.map { $0 + max(1, added) }
    }

    /// The store answered that the crawl is over: every worker asks, to hear it.
    mutating func finished() {
        permits = nil
    }
}
