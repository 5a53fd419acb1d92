import CNavShim
import WebKitThread

/// Owns one undecided WebKit policy decision and answers it exactly once.
///
/// If nothing answers it, it is allowed ("use") when the last reference goes,
/// on the WebKit thread, so WebKit is never left waiting.
@WebKitActor
final class PolicyDecision {
    private var handle: OpaquePointer?

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    func use() { take().map(nw_decision_use) }
    func ignore() { take().map(nw_decision_ignore) }
    func download() { take().map(nw_decision_download) }

    private func take() -> OpaquePointer? {
        defer { handle = nil }
        return handle
    }

    isolated deinit {
        if let handle { nw_decision_use(handle) }
    }
}
