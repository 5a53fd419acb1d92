import CNavShim
import Foundation
import NavWatchSupport

extension WebView {
    // MARK: Screenshots

    /// Writes a PNG of the viewport (`configuration.viewportWidth` by
    /// `viewportHeight`), or of the whole document with `fullPage`, as the
    /// page shows it now to `path`, replacing the file.
    ///
    /// - Throws: `WebViewError.closed` after `close()`, `screenshotFailed` when
    ///   WebKit has nothing to draw, the file cannot be written, or nothing
    ///   came within `timeout` (a web process that does not answer).
    public func writeScreenshot(to path: String, fullPage: Bool = false,
                                timeout: Duration = .seconds(30)) async throws(WebViewError) {
        guard let shim else { throw .closed }
        let box = FirstAnswer<String?>()
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            box.answer("no snapshot within \(timeout.seconds) s")
        }
        // Retained until the shim's `done` callback, which it calls exactly once.
        nw_view_write_snapshot(shim, path, fullPage ? 1 : 0, { context, error in
            let box = Unmanaged<FirstAnswer<String?>>.fromOpaque(context!).takeRetainedValue()
            box.answer(error.map { String(cString: $0) })
        }, Unmanaged.passRetained(box).toOpaque())
        let failure = await box.wait()
        timer.cancel()
        if let failure { throw .screenshotFailed(failure) }
    }
}
