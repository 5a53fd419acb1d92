import CNavShim
import Glibc
import Synchronization

/// The serial executor behind `WebKitActor`: one dedicated thread that starts
/// a display if needed, initialises GTK and then runs the GLib main loop.
///
/// Jobs are enqueued as GLib idle sources at default priority on the main
/// context, so they interleave in order with WebKit's own signals and never
/// run inline from `enqueue`, even when called on the WebKit thread.
package final class WebKitExecutor: SerialExecutor {
    package static let shared = WebKitExecutor()

    /// The kernel thread id of the WebKit thread; 0 until it has started.
    private let threadID = Atomic<Int32>(0)

    /// What went wrong while starting the display or GTK, if anything.
    /// Written once on the WebKit thread before its loop runs any job, so jobs
    /// (and only jobs) may read it without a lock.
    nonisolated(unsafe) private(set) var startupError: WebKitUnavailableError?

    private init() {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { _ in
            WebKitExecutor.shared.runWebKitThread()
        }, nil)
        pthread_attr_destroy(&attributes)
        precondition(result == 0, "cannot start the WebKit thread: error \(result)")
    }

    /// Whether the caller is on the WebKit thread.
    package var isOnWebKitThread: Bool {
        threadID.load(ordering: .acquiring) == nw_current_thread_id()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        // An UnownedJob is one pointer wide; it travels as the source's data.
        let job = UnownedJob(job)
        nw_runtime_enqueue({ data in
            let job = unsafeBitCast(data, to: UnownedJob.self)
            job.runSynchronously(on: WebKitExecutor.shared.asUnownedSerialExecutor())
        }, unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    }

    package func checkIsolated() {
        precondition(isOnWebKitThread, "expected to be on the WebKit thread")
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func runWebKitThread() -> Never {
        threadID.store(nw_current_thread_id(), ordering: .releasing)
        do {
            try DisplayServer.ensureDisplay()
            var message: UnsafeMutablePointer<CChar>?
            if nw_runtime_init(&message) == 0 {
                throw WebKitUnavailableError(reason: takeString(message) ?? "gtk_init_check failed")
            }
        } catch let error as WebKitUnavailableError {
            startupError = error
        } catch {
            startupError = WebKitUnavailableError(reason: "\(error)")
        }
        // The loop runs even when GTK did not start, so that every job still
        // runs and can report `startupError` instead of waiting forever.
        nw_runtime_run()
        fatalError("the GLib main loop returned")
    }
}

/// Copies and frees a string the shim returned with transfer full.
func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { nw_free(pointer) }
    return String(cString: pointer)
}
