import Foundation
import Logging
import NavWatch
import WebKitThread

private let logger = Logger(label: "navwatch.rx")

/// Input ports of a `WebView`: binders and settable properties.
@WebKitActor
extension Reactive where Base: WebView {
    /// Each URL starts a navigation (which ends the one before it, as `load` does).
    /// A URL the view refuses (an unsupported scheme) is logged and skipped.
    public var load: Binder<URL> {
        Binder(base, isGone: { $0.isClosed }) { view, url in
            do { try view.load(url) } catch { logger.error("rx.load refused a URL", metadata: ["url": "\(url)", "error": "\(error)"]) }
        }
    }

    /// Each HTML string is loaded as a document whose relative URLs resolve against `baseURL`.
    public func html(baseURL: URL? = nil) -> Binder<String> {
        Binder(base, isGone: { $0.isClosed }) { view, html in _ = try? view.loadHTML(html, baseURL: baseURL) }
    }

    /// The User-Agent of the next requests: the current one first, then every
    /// change; binding to it sets it (nil is WebKit's own).
    public var userAgent: ControlProperty<String?> {
        ControlProperty(values: delegate.userAgent.subscribe(),
                        binder: Binder(base, isGone: { $0.isClosed }) { $0.setUserAgent($1) })
    }

    /// Whether pages run JavaScript: the current value first, then every
    /// change; binding to it sets it.
    public var javaScriptEnabled: ControlProperty<Bool> {
        ControlProperty(values: delegate.javaScriptEnabled.subscribe(),
                        binder: Binder(base, isGone: { $0.isClosed }) { $0.setJavaScriptEnabled($1) })
    }

    /// Evaluates `script` in the page and returns its value (see `WebView.evaluateJavaScript`).
    public func evaluate(_ script: String) async throws(JavaScriptError) -> JavaScriptValue {
        try await base.evaluateJavaScript(script)
    }

    /// Evaluates `script` and decodes its `JSON.stringify`-ed value as `T`;
    /// a mismatch throws `decodingFailed` naming the path.
    public func evaluate<T: Decodable>(_ script: String, as type: T.Type) async throws(JavaScriptError) -> T {
        try await base.evaluateJavaScript(script, as: type)
    }
}
