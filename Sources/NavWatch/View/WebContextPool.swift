import CNavShim
import Foundation
import WebKitThread

/// One WebKit web context (network process, cookie store, TLS policy,
/// sandbox, proxy, request methods, memory limit, time zone) per distinct setting, shared by the views that use it and
/// kept for the life of the process; a view of `Storage.isolated` gets one of its own.
@WebKitActor
package enum WebContextPool {
    private struct Key: Hashable {
        let storage: WebViewConfiguration.Storage
        let tlsErrors: WebViewConfiguration.TLSErrorPolicy
        let sandboxed: Bool
        let networkProxy: URL?
        let memoryCache: Bool
        let readOnlyRequests: Bool
        let webProcessMemoryLimit: Int
        let timeZone: String?
    }

    /// The bubblewrap this WebKit build runs (a path fixed when it was built).
    package static let bubblewrapPath = "/usr/bin/bwrap"

    private static var contexts: [Key: OpaquePointer] = [:]
    /// nil until the first sandboxed context asks; then the check's answer.
    private static var sandboxCheck: Result<Void, WebKitUnavailableError>?

    /// The context for a view of `configuration`, and whether the view owns
    /// it (`Storage.isolated`: it gives it to `nw_context_free` once destroyed).
    ///
    /// - Throws: `WebKitUnavailableError` when the configuration asks for the
    ///   sandbox and bubblewrap cannot start (WebKit would abort the process),
    ///   or the web process extension cannot be written anywhere.
    static func context(for configuration: WebViewConfiguration) throws -> (context: OpaquePointer, owned: Bool) {
        if configuration.sandboxed { try checkSandbox() }
        let extensions = try WebProcessExtension.directory.get()
        let key = Key(storage: configuration.storage, tlsErrors: configuration.tlsErrors,
                      sandboxed: configuration.sandboxed, networkProxy: configuration.networkProxy,
                      memoryCache: configuration.memoryCache, readOnlyRequests: configuration.readOnlyRequests,
                      webProcessMemoryLimit: configuration.webProcessMemoryLimit,
                      timeZone: configuration.timeZone)
        if configuration.storage != .isolated, let context = contexts[key] { return (context, false) }
        let ignoreTLS: Int32 = configuration.tlsErrors == .ignore ? 1 : 0
        // The pages of a site share their scripts, style sheets and images:
        // WEB_BROWSER keeps them in the memory cache (DOCUMENT_VIEWER has
        // none, so each page fetched and parsed them again, some twice).
        let cacheModel = configuration.memoryCache ? NW_CACHE_MODEL_WEB_BROWSER : NW_CACHE_MODEL_DOCUMENT_VIEWER
        let sandboxed: Int32 = configuration.sandboxed ? 1 : 0
        let proxy = configuration.networkProxy?.absoluteString
        let readOnly: Int32 = configuration.readOnlyRequests ? 1 : 0
        let memoryLimit = UInt32(clamping: max(0, configuration.webProcessMemoryLimit))
        let timeZone = configuration.timeZone
        let context: OpaquePointer
        switch configuration.storage {
        case .ephemeral, .isolated:
            context = nw_context_new(1, nil, ignoreTLS, cacheModel, sandboxed, proxy, extensions, readOnly, memoryLimit,
                                     timeZone)
        case .persistent(let directory):
            context = nw_context_new(0, directory.path, ignoreTLS, cacheModel, sandboxed, proxy, extensions, readOnly,
                                     memoryLimit, timeZone)
        }
        if configuration.storage == .isolated { return (context, true) }
        contexts[key] = context
        return (context, false)
    }

    private static func checkSandbox() throws {
        if sandboxCheck == nil {
            sandboxCheck = sandboxProblem(bubblewrapPath: bubblewrapPath).map { .failure($0) } ?? .success(())
        }
        try sandboxCheck?.get()
    }

    /// Why web processes cannot be sandboxed with the bubblewrap at
    /// `bubblewrapPath`, as one line with the fix; nil when they can.
    package static func sandboxProblem(bubblewrapPath: String) -> WebKitUnavailableError? {
        var message: UnsafeMutablePointer<CChar>?
        if nw_sandbox_check(bubblewrapPath, &message) == 1 { return nil }
        let reason = message.map { String(cString: $0) } ?? "it failed"
        nw_free(message)
        // A bubblewrap that runs and fails is refused namespaces or a /proc
        // (a container): installing it again would not help.
        let fix = FileManager.default.isExecutableFile(atPath: bubblewrapPath)
            ? "this system does not let it make namespaces; turn the sandbox off"
            : "install bubblewrap (apt install bubblewrap), or turn the sandbox off"
        return WebKitUnavailableError(reason: """
            the web process sandbox cannot start (\(reason.split(separator: "\n").joined(separator: " "))): \
            \(fix) (--no-sandbox, WebViewConfiguration.sandboxed = false)
            """)
    }
}
