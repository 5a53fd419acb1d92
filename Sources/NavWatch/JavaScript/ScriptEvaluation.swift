import CNavShim
import WebKitThread

/// One running `evaluateJavaScript` call: owns the shim's evaluation handle
/// and resumes its continuation exactly once, when WebKit answers (also after
/// a cancel or the view closing).
@WebKitActor
final class ScriptEvaluation {
    typealias Continuation = CheckedContinuation<Result<String?, JavaScriptError>, Never>

    private var handle: OpaquePointer?
    private var cancelled = false

    /// How the script runs.
    enum Kind {
        /// As a script in the page's own world; its completion value answers.
        case script
        /// As the body of an async function in `world` (nil: the page's own);
        /// the value its promise settles to answers.
        case asyncFunction(world: String?)
    }

    func start(on shim: OpaquePointer, script: String, kind: Kind = .script, continuation: Continuation) {
        guard !cancelled else {
            continuation.resume(returning: .failure(.cancelled))
            return
        }
        // Retained until the shim's `done` callback, which it calls exactly once.
        let box = Unmanaged.passRetained(ContinuationBox(continuation)).toOpaque()
        let done: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<nw_js_result>) -> Void = { context, result in
            let box = Unmanaged<ContinuationBox>.fromOpaque(context!).takeRetainedValue()
            box.continuation.resume(returning: ScriptEvaluation.convert(result.pointee))
        }
        switch kind {
        case .script:
            handle = nw_view_evaluate(shim, script, done, box)
        case .asyncFunction(let world):
            handle = world.withOptionalCString { nw_view_call_async(shim, script, $0, done, box) }
        }
    }

    func cancel() {
        cancelled = true
        if let handle { nw_evaluation_cancel(handle) }
    }

    isolated deinit {
        if let handle { nw_evaluation_free(handle) }
    }

    private nonisolated static func convert(_ result: nw_js_result) -> Result<String?, JavaScriptError> {
        switch result.type {
        case NW_JS_ERROR:
            let domain = result.error_domain.map { String(cString: $0) } ?? ""
            let message = result.error_message.map { String(cString: $0) } ?? ""
            switch (domain, result.error_code) {
            case ("WebKitJavascriptError", 699): return .failure(JavaScriptError.exception(reported: message))
            case ("WebKitJavascriptError", _): return .failure(.unserializableResult(message))
            case ("g-io-error-quark", 19): return .failure(.cancelled)
            default: return .failure(.other(domain: domain, code: Int(result.error_code), message: message))
            }
        case NW_JS_UNDEFINED:
            return .success(nil)
        case NW_JS_NULL:
            return .success("null")
        default:
            guard let json = result.json else {
                return .failure(.unserializableResult("the value has no JSON form"))
            }
            return .success(String(cString: json))
        }
    }
}

extension Optional<String> {
    /// Calls `body` with the string as a C string, or with nil.
    func withOptionalCString<T>(_ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard let self else { return body(nil) }
        return self.withCString { body($0) }
    }
}

private final class ContinuationBox: Sendable {
    let continuation: ScriptEvaluation.Continuation
    init(_ continuation: ScriptEvaluation.Continuation) { self.continuation = continuation }
}
