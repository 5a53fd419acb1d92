import Foundation
import Glibc
import Synchronization

/// What a crash or a hang leaves behind: the input each running pass was
/// checking, printed escaped to standard error and saved to
/// `<failures>/<parser>-crash`, from a signal handler (no allocation, only
/// `write`, `open` and `close`) or from a watchdog thread.
final class CrashReport: Sendable {
    /// The largest input kept; a longer one is kept cut (and says so).
    static let capacity = 1 << 20

    private let name: [UInt8]
    private let path: [CChar]
    nonisolated(unsafe) private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    nonisolated(unsafe) private let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * capacity + 512)
    private let length = Atomic<Int>(0)
    /// When the current input started (`DispatchTime` nanoseconds), 0 between inputs.
    private let started = Atomic<UInt64>(0)
    /// The thread checking the current input.
    private let thread = Atomic<UInt>(0)

    private init(name: String) {
        self.name = Array(name.utf8)
        path = Array(((FuzzFailures.directory as NSString).appendingPathComponent("\(name)-crash")).utf8CString)
    }

    private static let slots = Mutex<[String: CrashReport]>([:])

    /// The slot of the pass over `parser`; the first call installs the handlers.
    static func slot(for parser: String) -> CrashReport {
        installed.withLock { done in
            guard !done else { return }
            done = true
            installHandlers()
            startWatchdog()
        }
        return slots.withLock { slots in
            if let slot = slots[parser] { return slot }
            let slot = CrashReport(name: parser)
            slots[parser] = slot
            allSlots.withLock { $0.append(slot); handlerSlots = $0 }
            return slot
        }
    }

    func begin(_ bytes: [UInt8]) {
        let count = min(bytes.count, Self.capacity)
        bytes.withUnsafeBufferPointer { input.update(from: $0.baseAddress!, count: count) }
        length.store(bytes.count, ordering: .relaxed)
        thread.store(pthread_self(), ordering: .relaxed)
        started.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
    }

    func end() {
        started.store(0, ordering: .releasing)
    }

    /// Writes `navwatch fuzz: <parser>: <what> on input (<n> bytes): "<escaped>"`
    /// to standard error and, if `save`, the raw input to the crash file.
    private func dump(_ what: StaticString, save: Bool = true) {
        let count = length.load(ordering: .relaxed), kept = min(count, Self.capacity)
        var end = 0
        func emit(_ byte: UInt8) { output[end] = byte; end += 1 }
        func emit(_ text: StaticString) { for index in 0..<text.utf8CodeUnitCount { emit(text.utf8Start[index]) } }
        func emit(number: Int) {
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var value = number, used = 0
            withUnsafeMutableBytes(of: &digits) { digits in
                repeat { digits[used] = UInt8(48 + value % 10); value /= 10; used += 1 } while value > 0 && used < 12
                for index in stride(from: used - 1, through: 0, by: -1) { emit(digits[index]) }
            }
        }
        emit("navwatch fuzz: ")
        for byte in name { emit(byte) }
        emit(": ")
        emit(what)
        emit(" on input (")
        emit(number: count)
        emit(kept < count ? " bytes, the first 1 MiB): \"" : " bytes): \"")
        for index in 0..<kept { Escaped.escape(input[index]) { emit($0) } }
        emit("\"\n")
        _ = write(2, output, end)
        guard save else { return }
        _ = mkdir(FuzzFailures.directory, 0o755)
        let file = path.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if file >= 0 {
            _ = write(file, input, kept)
            _ = close(file)
        }
    }

    // MARK: - Crashes

    private static let installed = Mutex(false)
    private static let allSlots = Mutex<[CrashReport]>([])
    /// The slots as the signal handler reads them (no lock there).
    nonisolated(unsafe) private static var handlerSlots: [CrashReport] = []
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]
    private static let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// A crash prints the inputs being checked, then the handler that was
    /// there before (Swift's backtracer) takes the signal again.
    private static func installHandlers() {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                // The signal comes on the thread that crashed; other passes were running too.
                for slot in CrashReport.handlerSlots where slot.started.load(ordering: .acquiring) != 0 {
                    let crashed = slot.thread.load(ordering: .relaxed) == pthread_self()
                    slot.dump(crashed ? "crashed" : "was running when another pass crashed", save: crashed)
                }
                if var old = CrashReport.previous[signal] { sigaction(signal, &old, nil) } else { Glibc.signal(signal, SIG_DFL) }
                // Returning runs the faulting instruction again (or abort raises
                // again), now under the old handler.
            }
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    // MARK: - Hangs

    /// Checks every second whether an input has run longer than the hang limit;
    /// if so, dumps it and ends the process.
    private static func startWatchdog() {
        let limit = UInt64(FuzzSettings.current.hangSeconds) * 1_000_000_000
        let thread = Thread {
            while true {
                sleep(1)
                let slots = allSlots.withLock { $0 }
                let now = DispatchTime.now().uptimeNanoseconds
                for slot in slots {
                    let start = slot.started.load(ordering: .acquiring)
                    if start != 0 && now > start && now - start > limit {
                        slot.dump("hung (over the hang limit)")
                        _exit(70)
                    }
                }
            }
        }
        thread.start()
    }
}
