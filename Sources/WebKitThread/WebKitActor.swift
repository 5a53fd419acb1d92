/// The global actor that owns every GTK and WebKit object.
///
/// Its executor runs jobs on the one WebKit thread, inside that thread's GLib
/// main loop, so code isolated to `@WebKitActor` may call GTK and WebKit
/// directly. Callers on any other thread or task reach it with `await`.
/// Nothing here depends on `@MainActor`, whose queue a GLib loop never drains.
@globalActor
public actor WebKitActor {
    public static let shared = WebKitActor()

    private init() {}

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        WebKitExecutor.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` as `@WebKitActor` code, synchronously.
    ///
    /// Must be called on the WebKit thread (for example from a C callback the
    /// shim invokes); stops the process with a message otherwise.
    public static func assumeIsolated<T>(
        _ operation: @WebKitActor () throws -> T,
        file: StaticString = #fileID, line: UInt = #line
    ) rethrows -> T {
        precondition(
            WebKitExecutor.shared.isOnWebKitThread,
            "WebKitActor.assumeIsolated called off the WebKit thread; hop with `await` instead",
            file: file, line: line)
        typealias Isolated = @WebKitActor () throws -> T
        typealias Plain = () throws -> T
        return try withoutActuallyEscaping(operation) { (isolated: @escaping Isolated) throws -> T in
            try unsafeBitCast(isolated, to: Plain.self)()
        }
    }
}
