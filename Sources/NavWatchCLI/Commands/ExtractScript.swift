import Foundation
import NavWatch
import NavWatchCrawler
import NavWatchRx
import WebKitThread

/// `navwatch crawl --extract FILE.js`: a script run on each loaded page as
/// the body of an async function (it may `await`); the JSON form of what it
/// returns is the page's `data`. The CLI's form of a `PageHandler`.
struct ExtractScript: Sendable {
    let body: String

    /// Reads the script at `path` and compiles it in a blank page, so that a
    /// script that cannot run stops the crawl before any page is loaded.
    static func load(_ path: String) async throws -> ExtractScript {
        let body: String
        do { body = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw InputError("cannot read the --extract script \(path): \(InputError.reason(error))")
        }
        let script = ExtractScript(body: body)
        let problem: String?
        do { problem = try await script.compileError() } catch let error as WebKitUnavailableError {
            throw InputError(error.description)
        }
        if let problem { throw InputError("the --extract script \(path) does not compile: \(problem)") }
        return script
    }

    /// The script's syntax error, with its line in the file, when it has one.
    @WebKitActor
    private func compileError() async throws -> String? {
        let view = try WebView()
        defer { view.close() }
        try await view.showBlankPage()
        // The async function constructor compiles without running; its
        // source starts with two lines of its own before the body.
        let check = """
            try { new (Object.getPrototypeOf(async function () {}).constructor)(\(JavaScriptValue.literal(body))); return null; }
            catch (e) { return {message: String(e), line: typeof e.line === 'number' ? e.line - 2 : null}; }
            """
        guard case .object(let error) = try await view.callAsyncJavaScript(check) else { return nil }
        let message = error["message"]?.stringValue ?? "the script does not compile"
        guard case .number(let line)? = error["line"], line >= 1, line < 1e9 else { return message }
        return "line \(Int(line)): \(message)"
    }

    /// The handler that runs the script on each page; `undefined` stores no
    /// data. What the script throws is the page's `handler_error`, with the
    /// line in the file when it was thrown there (not in a page's script).
    var handler: PageHandler {
        // The wrapper's first line comes before the script's first.
        let wrapped = """
            try {
            \(body)
            } catch (e) {
              const line = e && !e.sourceURL && typeof e.line === 'number' ? e.line - 1 : null;
              return {[\(JavaScriptValue.literal(Self.thrownKey))]: String(e), line: line};
            }
            """
        return { page in
            let value = try await page.view.callAsyncJavaScript(wrapped)
            if case .object(let object) = value, case .string(let thrown)? = object[Self.thrownKey] {
                var line: Int?
                if case .number(let number)? = object["line"], number >= 1, number < 1e9 { line = Int(number) }
                throw JavaScriptError.exception(message: thrown, line: line)
            }
            return value == .undefined ? nil : value
        }
    }

    /// The key of the object the wrapped script returns for what the script threw.
    private static let thrownKey = "navwatch: thrown"
}
