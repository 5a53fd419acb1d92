import CNavShim
import Foundation
import NavWatchSupport
import WebKitThread

extension WebView {
    // MARK: JavaScript

    /// Evaluates `script` in the page's main frame and returns its value.
    ///
    /// The value goes through `JSON.stringify`: DOM nodes, functions and
    /// cyclic objects throw `unserializableResult`. Cancelling the awaiting
    /// task cancels the evaluation.
    public func evaluateJavaScript(_ script: String) async throws(JavaScriptError) -> JavaScriptValue {
        let json = try await evaluateForJSON(script, kind: .script)
        guard let json else { return .undefined }
        do {
            return try JavaScriptValue(json: json)
        } catch {
            throw .unserializableResult("\(error)")
        }
    }

    /// Evaluates `script` and decodes its `JSON.stringify`-ed value as `T`.
    public func evaluateJavaScript<T: Decodable>(_ script: String, as type: T.Type) async throws(JavaScriptError) -> T {
        guard let json = try await evaluateForJSON(script, kind: .script) else {
            throw .decodingFailed(path: "(root)", message: "the script returned undefined")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            throw .decodingFailed(path: error.codingPathDescription, message: error.failureDescription)
        } catch {
            throw .decodingFailed(path: "(root)", message: "\(error)")
        }
    }

    /// Runs `body` as the body of an async function in the page's main
    /// frame, in the page's own world, and returns the value its promise
    /// settles to (like WKWebView's `callAsyncJavaScript`): the body may
    /// `await`, and `return`s its value.
    ///
    /// The value goes through `JSON.stringify`, as with
    /// `evaluateJavaScript(_:)`; a rejection or an exception throws
    /// `exception`. Cancelling the awaiting task cancels the call.
    public func callAsyncJavaScript(_ body: String) async throws(JavaScriptError) -> JavaScriptValue {
        let json = try await evaluateForJSON(body, kind: .asyncFunction(world: nil))
        guard let json else { return .undefined }
        do {
            return try JavaScriptValue(json: json)
        } catch {
            throw .unserializableResult("\(error)")
        }
    }

    /// Evaluates `script` and returns its value's JSON text as WebKit made
    /// it (nil for undefined), for a caller that decodes it elsewhere.
    package func evaluateForJSON(_ script: String) async throws(JavaScriptError) -> String? {
        try await evaluateForJSON(script, kind: .script)
    }

    /// Runs `body` as an async function in navwatch's own script world (where
    /// the page cannot replace what it calls) and returns its value's JSON
    /// text; nil when it fails, or has not answered within `timeout` (it
    /// then runs on; a page that never yields keeps its web process busy).
    package func evaluateForJSONInOwnWorld(_ body: String, timeout: Duration) async -> String? {
        let answer = await evaluateForJSON(body, kind: .asyncFunction(world: DocumentScript.world), backstop: timeout)
        return (try? answer.get()) ?? nil
    }

    /// An async function's body for `evaluateForJSONInOwnWorld` that answers
    /// the JSON text of the URLs of the page's links (`<a href>`, `<area
    /// href>`, frames) as its `load` event left them, once the event's last
    /// listener had run; of its links now when it has not got that far.
    /// Links that scripts add later, from answers to requests they made, are
    /// not among them.
    package nonisolated static var linksAtLoadScript: String { DocumentScript.linksAtLoadScript }

    /// Evaluates `script` as `evaluateForJSON(_:kind:)` does, but answers
    /// `.failure(.cancelled)` as soon as the awaiting task is cancelled or
    /// `backstop` has passed, and cancels the evaluation then: WebKit answers
    /// a cancelled async call only once its promise settles.
    func evaluateForJSON(_ script: String, kind: ScriptEvaluation.Kind,
                         backstop: Duration?) async -> Result<String?, JavaScriptError> {
        let first = FirstAnswer<Result<String?, JavaScriptError>>()
        let evaluation = Task { @WebKitActor in
            do throws(JavaScriptError) {
                first.answer(.success(try await self.evaluateForJSON(script, kind: kind)))
            } catch {
                first.answer(.failure(error))
            }
        }
        let timer = backstop.map { backstop in
            Task {
                guard (try? await Task.sleep(for: backstop)) != nil else { return }
                first.answer(.failure(.cancelled))
                evaluation.cancel()
            }
        }
        defer { timer?.cancel() }
        return await withTaskCancellationHandler { await first.wait() } onCancel: {
            first.answer(.failure(.cancelled))
            evaluation.cancel()
        }
    }

    func evaluateForJSON(_ script: String, kind: ScriptEvaluation.Kind) async throws(JavaScriptError) -> String? {
        guard let shim else { throw .viewClosed }
        let evaluation = ScriptEvaluation()
        let outcome: Result<String?, JavaScriptError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                evaluation.start(on: shim, script: script, kind: kind, continuation: continuation)
            }
        } onCancel: {
            Task { @WebKitActor in evaluation.cancel() }
        }
        if case .failure(.cancelled) = outcome, self.shim == nil { throw .viewClosed }
        return try outcome.get()
    }
}
