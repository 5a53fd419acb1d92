import CNavShim
import Foundation

extension WebView {
    // MARK: Interception (NavWatchTesting's routes)

    /// Sends the view's later requests, and those of the popups its pages
    /// open, through the HTTP proxy at `proxy` (`http://127.0.0.1:PORT`),
    /// loopback hosts included; nil: as the configuration says again.
    ///
    /// - Throws: `WebViewError.closed` after `close()`, and
    ///   `invalidConfiguration` for a view without a web context of its own
    ///   (`Storage.isolated`), whose proxy would be other views' too.
    package func interceptRequests(through proxy: URL?) throws(WebViewError) {
        try checkInterceptable()
        guard let shim else { throw .closed }
        nw_view_set_proxy(shim, (proxy ?? configuration.networkProxy)?.absoluteString)
    }

    /// Throws what `interceptRequests(through:)` would, changing nothing.
    package func checkInterceptable() throws(WebViewError) {
        guard shim != nil else { throw .closed }
        guard ownsContext else {
            throw .invalidConfiguration(
                "routes need a view with storage of its own (WebViewConfiguration.Storage.isolated, as .testing has); set them on the view that opened a popup")
        }
    }

    /// Makes the view accept `certificatePEM` for `host` (as URLs write it,
    /// without brackets), however it fails to validate: the certificate of
    /// an intercepting proxy.
    package func allowCertificate(_ certificatePEM: String, for host: String) throws(WebViewError) {
        guard let shim else { throw .closed }
        if let failure = nw_view_allow_certificate(shim, certificatePEM, host) {
            defer { nw_free(failure) }
            throw .invalidConfiguration("cannot accept a certificate for \(host): \(String(cString: failure))")
        }
    }
}
