import CNavShim
import Foundation
import NavWatchSupport

/// How a screenshot is encoded.
public enum ScreenshotType: Sendable, Equatable {
    /// PNG: lossless, some tens of milliseconds for a viewport.
    case png
    /// JPEG at `quality` (1 to 100): a few milliseconds for a viewport, and smaller.
    case jpeg(quality: Int = 80)
}

extension WebView {
    // MARK: Screenshots

    /// A picture of the viewport (`configuration.viewportWidth` by
    /// `viewportHeight`), or of the whole document with `fullPage`, as the
    /// page shows it now, encoded as `type`; scaled down to `maxWidth`
    /// pixels wide when it is wider.
    ///
    /// - Throws: `WebViewError.closed` after `close()`, `screenshotFailed` when
    ///   WebKit has nothing to draw or nothing came within `timeout` (a web
    ///   process that does not answer).
    public func screenshot(fullPage: Bool = false, type: ScreenshotType = .png, maxWidth: Int? = nil,
                           timeout: Duration = .seconds(30)) async throws(WebViewError) -> Data {
        try await requestScreenshot(fullPage: fullPage, type: type, maxWidth: maxWidth, timeout: timeout).value()
    }

    /// Writes a PNG of the viewport, or of the whole document with
    /// `fullPage`, as the page shows it now to `path`, replacing the file.
    ///
    /// - Throws: as `screenshot(fullPage:type:maxWidth:timeout:)`, and
    ///   `screenshotFailed` when the file cannot be written.
    public func writeScreenshot(to path: String, fullPage: Bool = false,
                                timeout: Duration = .seconds(30)) async throws(WebViewError) {
        let png = try await screenshot(fullPage: fullPage, timeout: timeout)
        do {
            try png.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .screenshotFailed("\(path): \(error.localizedDescription)")
        }
    }

    /// Asks WebKit for a screenshot now, as `screenshot(...)` does, and
    /// returns at once: the web process answers in order, so the picture is
    /// the page as it is now even when it is awaited later.
    package func requestScreenshot(fullPage: Bool = false, type: ScreenshotType = .png, maxWidth: Int? = nil,
                                   timeout: Duration) -> PendingScreenshot {
        let pending = PendingScreenshot(timeout: timeout)
        guard let shim else {
            pending.answer.answer(.failure(.closed))
            return pending
        }
        let (imageType, quality): (nw_image_type, Int32) = switch type {
        case .png: (NW_IMAGE_PNG, 0)
        case .jpeg(let quality): (NW_IMAGE_JPEG, Int32(clamping: quality))
        }
        // Retained until the shim's `done` callback, which it calls exactly once.
        nw_view_snapshot(shim, fullPage ? 1 : 0, Int32(clamping: maxWidth ?? 0), imageType, quality, { context, bytes, length, error in
            let answer = Unmanaged<FirstAnswer<Result<Data, WebViewError>>>.fromOpaque(context!).takeRetainedValue()
            if let bytes {
                answer.answer(.success(Data(bytes: bytes, count: length)))
            } else {
                answer.answer(.failure(.screenshotFailed(error.map { String(cString: $0) } ?? "no snapshot")))
            }
        }, Unmanaged.passRetained(pending.answer).toOpaque())
        return pending
    }
}

/// A screenshot asked for and not yet awaited (`WebView.requestScreenshot`).
package final class PendingScreenshot: Sendable {
    fileprivate let answer: FirstAnswer<Result<Data, WebViewError>>
    private let timer: Task<Void, Never>

    /// Fails with `screenshotFailed` once `timeout` has passed without a picture.
    fileprivate init(timeout: Duration) {
        let answer = FirstAnswer<Result<Data, WebViewError>>()
        self.answer = answer
        timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            answer.answer(.failure(.screenshotFailed("no snapshot within \(timeout.seconds) s")))
        }
    }

    /// The picture, or why there is none; every caller gets the same answer.
    package func value() async throws(WebViewError) -> Data {
        let result = await answer.wait()
        timer.cancel()
        return try result.get()
    }
}
