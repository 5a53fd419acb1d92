import Foundation
import NavWatchTestSupport
import Synchronization
import Testing

/// Runs the built `navwatch` binary (or another `executable`) with DISPLAY
/// unset (navwatch starts its own Xvfb), collecting its output line by line.
final class NavwatchProcess: Sendable {
    struct Result: Sendable {
        let stdout: [String]
        let stderr: String
        let status: Int32
    }

    static let binary = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("navwatch").path

    private let process: Process
    private let lines = Mutex<[String]>([])
    private let waiters = Mutex<[(predicate: @Sendable ([String]) -> Bool, continuation: CheckedContinuation<Void, Never>)]>([])
    private let stdoutPipe = Pipe(), stderrPipe = Pipe()

    init(_ arguments: [String], environment: [String: String] = [:], executable: String = NavwatchProcess.binary) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DISPLAY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        // Not waitUntilExit(): on Linux it waits on a run loop that can miss
        // the child's exit when many children run at once, and then never returns.
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        startReaders()
        watchExit()
    }

    /// The exit status when this harness reaped the child itself.
    private let reapedStatus = Mutex<Int32?>(nil)

    /// Foundation learns of the child's exit when a socket the child
    /// inherited closes; a process that also inherited it keeps it open. The
    /// test process's own WebKit starts its network process with every
    /// descriptor it has that lacks close-on-exec, so one started while
    /// `run()` spawns the child holds that socket for as long as it lives,
    /// and the termination handler never comes (the child stays a zombie).
    /// So the exit is also watched here, by `waitid` without reaping, and
    /// the child reaped here unless Foundation already did.
    private func watchExit() {
        let pid = process.processIdentifier
        Thread.detachNewThread { [self] in
            var info = siginfo_t()
            var result: Int32
            repeat { result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while result == -1 && errno == EINTR
            guard result == 0 else { return }  // Foundation reaped it: its handler signals
            // Reaped and recorded under the lock `finishUnbounded` reads it
            // with: once this reaps the child, Foundation's own wait fails and
            // its handler can run at once, with a status of 0 that is not
            // the child's.
            let reaped = reapedStatus.withLock { reapedStatus in
                var status: Int32 = 0
                guard waitpid(pid, &status, WNOHANG) == pid else { return false }
                // As Foundation reports it: the exit code, or the signal that ended it.
                reapedStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
                return true
            }
            if reaped { exited.signal() }
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// The lines printed so far.
    var output: [String] { lines.withLock { $0 } }

    /// Waits until the output so far satisfies `predicate`.
    ///
    /// - Throws: `DeadlineExceeded`, after killing the process, when it did
    ///   not within `timeout`.
    func waitForOutput(_ what: String = "the expected output", within timeout: Duration = .seconds(60),
                       _ predicate: @escaping @Sendable ([String]) -> Bool) async throws {
        do {
            try await withDeadline("navwatch to print \(what)", within: timeout) { await self.waitForOutputUnbounded(predicate) }
        } catch let error as DeadlineExceeded {
            signal(SIGKILL)
            throw DeadlineExceeded(what: "\(error.what); it had printed \(lines.withLock { $0 })", timeout: error.timeout)
        }
    }

    private func waitForOutputUnbounded(_ predicate: @escaping @Sendable ([String]) -> Bool) async {
        await withCheckedContinuation { continuation in
            // Checked and registered under the waiters' lock, which the reader
            // also takes after appending a line: no line slips in between.
            waiters.withLock { waiters in
                if lines.withLock({ predicate($0) }) { continuation.resume() } else { waiters.append((predicate, continuation)) }
            }
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to exit and for all of its output.
    ///
    /// - Throws: `DeadlineExceeded`, after killing the process, when it did
    ///   not exit within `timeout`.
    func finish(within timeout: Duration = .seconds(120)) async throws -> Result {
        do {
            return try await withDeadline("navwatch \(process.arguments?.joined(separator: " ") ?? "") to exit",
                                          within: timeout) { await self.finishUnbounded() }
        } catch let error as DeadlineExceeded {
            signal(SIGKILL)
            throw DeadlineExceeded(what: "\(error.what); it had printed \(lines.withLock { $0 })", timeout: error.timeout)
        }
    }

    private func finishUnbounded() async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            Thread.detachNewThread { [self] in
                exited.wait()
                // The output ends when every process holding the pipes has: a
                // WebKit process of navwatch's that lingers must not hold the
                // test. (That none outlives it is a test of its own.)
                _ = stdoutDone.wait(timeout: .now() + 10)
                _ = stderrDone.wait(timeout: .now() + 10)
                continuation.resume(returning: Result(stdout: lines.withLock { $0 },
                                                      stderr: String(decoding: errors.withLock { $0 }, as: UTF8.self),
                                                      status: reapedStatus.withLock { $0 } ?? process.terminationStatus))
            }
        }
    }

    private let errors = Mutex(Data())
    /// Signalled once, by the process's termination handler.
    private let exited = DispatchSemaphore(value: 0)
    private let stdoutDone = DispatchSemaphore(value: 0), stderrDone = DispatchSemaphore(value: 0)

    private func startReaders() {
        Thread.detachNewThread { [self] in
            let handle = stderrPipe.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                errors.withLock { $0.append(chunk) }
            }
            stderrDone.signal()
        }
        Thread.detachNewThread { [self] in
            var buffer = Data()
            let handle = stdoutPipe.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    let ready = waiters.withLock { waiters in
                        let snapshot = lines.withLock { $0.append(line); return $0 }
                        let ready = waiters.filter { $0.predicate(snapshot) }
                        waiters.removeAll { $0.predicate(snapshot) }
                        return ready
                    }
                    for waiter in ready { waiter.continuation.resume() }
                }
            }
            // At the end of the output nothing more can match: release every waiter.
            let remaining = waiters.withLock { waiters in defer { waiters.removeAll() }; return waiters }
            for waiter in remaining { waiter.continuation.resume() }
            stdoutDone.signal()
        }
    }

    /// Runs to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await NavwatchProcess(arguments, environment: environment).finish()
    }
}

/// A path in the temporary directory that nothing uses yet, ending in `name`.
func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
}

/// The `url` of each JSON report line `navwatch crawl` or `export` printed.
func reportURLs(_ lines: [String]) throws -> [String] {
    try lines.map { line in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["url"] as? String)
    }
}

/// Processes (not zombies) descended from `pid`, by command name.
func descendantProcesses(of pid: Int32) -> [Int32: String] {
    ProcessTree.descendants(of: pid).mapValues(\.name)
}

/// Whether `pid` is gone or a zombie.
func isDead(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}
