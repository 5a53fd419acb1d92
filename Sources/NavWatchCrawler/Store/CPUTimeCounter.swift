import Glibc
import Synchronization

/// Adds up the CPU time of pieces of work, each measured on the thread that
/// ran it (`CLOCK_THREAD_CPUTIME_ID`), whatever thread that is. Thread-safe.
package final class CPUTimeCounter: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    package init() {}

    /// Runs `body` and adds the CPU time it took on this thread.
    package func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = Self.threadNanoseconds()
        defer { nanoseconds.add(Self.threadNanoseconds() &- start, ordering: .relaxed) }
        return try body()
    }

    /// The CPU time measured so far, in seconds.
    package var seconds: Double {
        Double(nanoseconds.load(ordering: .relaxed)) / 1e9
    }

    private static func threadNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
