import CNavShim
import WebKitThread

/// One WebKit web context (network process, cookie store, TLS policy) per
/// distinct storage and TLS setting, shared by the views that use it and kept
/// for the life of the process.
@WebKitActor
enum WebContextPool {
    private struct Key: Hashable {
        let storage: WebViewConfiguration.Storage
        let tlsErrors: WebViewConfiguration.TLSErrorPolicy
    }

    private static var contexts: [Key: OpaquePointer] = [:]

    static func context(for configuration: WebViewConfiguration) -> OpaquePointer {
        let key = Key(storage: configuration.storage, tlsErrors: configuration.tlsErrors)
        if let context = contexts[key] { return context }
        let ignoreTLS: Int32 = configuration.tlsErrors == .ignore ? 1 : 0
        // A crawler and a watcher load each page once: the smallest cache.
        let cacheModel = NW_CACHE_MODEL_DOCUMENT_VIEWER
        let context: OpaquePointer
        switch configuration.storage {
        case .ephemeral:
            context = nw_context_new(1, nil, ignoreTLS, cacheModel)
        case .persistent(let directory):
            context = nw_context_new(0, directory.path, ignoreTLS, cacheModel)
        }
        contexts[key] = context
        return context
    }
}
