import Foundation

/// Why a navigation failed: a closed set of kinds to switch over, and the raw
/// error WebKit (or navwatch) reported.
public struct NavigationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in terms a caller can act on. The raw values are the
    /// spellings used in navwatch's JSON output.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// The host name did not resolve.
        case dns
        /// Nothing listens on the port.
        case connectionRefused = "connection-refused"
        /// The connection broke before the response was complete.
        case connectionReset = "connection-reset"
        /// The certificate did not validate, or the TLS handshake failed.
        case tls
        /// The navigation took longer than the configured timeout.
        case timeout
        /// A stop, a new load on the same view, or the view closing ended it.
        case cancelled
        /// The server redirected more than WebKit follows (20 hops).
        case tooManyRedirects = "too-many-redirects"
        /// The port is on the browser's list of restricted ports.
        case blockedPort = "blocked-port"
        /// A policy decision stopped it (cancelled by the delegate, a
        /// download, a MIME type WebKit cannot show).
        case policy
        /// The web process crashed or was terminated during the navigation.
        case webProcessCrashed = "web-process-crashed"
        /// Anything else; see `domain`, `code` and `message`.
        case other
    }

    /// What went wrong, as a closed set to switch over.
    public let kind: Kind
    /// The GError domain (for example `g-io-error-quark`, `WebKitNetworkError`),
    /// or `navwatch` for failures navwatch itself decided (timeouts, crashes).
    public let domain: String
    /// The error's code in `domain` (a `NavwatchCode` in `navwatchDomain`).
    public let code: Int
    /// The message WebKit (or navwatch) gave, for people to read.
    public let message: String
    /// The URL that failed, when known.
    public let failingURL: URL?

    /// Makes an error from its parts, for delegates and tests; a view reports the
    /// failures of its navigations itself.
    public init(kind: Kind, domain: String, code: Int, message: String, failingURL: URL?) {
        self.kind = kind
        self.domain = domain
        self.code = code
        self.message = message
        self.failingURL = failingURL
    }

    /// `kind: message (domain code)`, in one line.
    public var description: String {
        "\(kind.rawValue): \(message) (\(domain) \(code))"
    }
}

extension NavigationError {
    /// The domain of errors navwatch decides itself.
    public static let navwatchDomain = "navwatch"

    /// Codes in `navwatchDomain`.
    public enum NavwatchCode: Int, Sendable {
        /// The navigation took longer than `WebViewConfiguration.navigationTimeout`.
        case timeout = 1
        /// The web process went away during the navigation.
        case webProcessTerminated = 2
        /// The delegate's policy decision cancelled it.
        case cancelledByDelegate = 3
        /// A newer navigation of the same view replaced it.
        case superseded = 4
        /// The view was closed while it ran.
        case viewClosed = 5
        /// `WebView.stop()` stopped it.
        case stopped = 6
        /// The port is on the list of restricted ports WebKit refuses to load from.
        case blockedPort = 7
        /// The web process used more memory than `WebViewConfiguration.webProcessMemoryLimit`
        /// and WebKit ended it during the navigation.
        case exceededMemoryLimit = 8
    }

    package static func navwatch(_ kind: Kind, _ code: NavwatchCode, _ message: String, url: URL?) -> NavigationError {
        NavigationError(kind: kind, domain: navwatchDomain, code: code.rawValue, message: message, failingURL: url)
    }

    /// How a navigation still running ends when its view closes.
    package static func viewClosed(url: URL) -> NavigationError {
        .navwatch(.cancelled, .viewClosed, "the web view was closed", url: url)
    }

    /// Maps a GError reported by WebKit to a kind.
    ///
    /// - Parameters:
    ///   - domain: the GError's domain (`g-io-error-quark`, ...).
    ///   - code: the GError's code in that domain.
    ///   - message: the GError's message; some kinds are told apart by it.
    ///   - sawTLSFailure: whether `load-failed-with-tls-errors` was
    ///     emitted for the same load.
    public static func classify(domain: String, code: Int, message: String, sawTLSFailure: Bool) -> Kind {
        if sawTLSFailure || domain == "g-tls-error-quark" { return .tls }
        switch domain {
        case "g-resolver-error-quark":
            return .dns
        case "g-io-error-quark":
            switch code {
            case 39: return .connectionRefused        // G_IO_ERROR_CONNECTION_REFUSED
            case 44, 45, 34: return .connectionReset  // CONNECTION_CLOSED, NOT_CONNECTED, PARTIAL_INPUT
            case 24: return .timeout                  // G_IO_ERROR_TIMED_OUT
            case 19: return .cancelled                // G_IO_ERROR_CANCELLED
            case 28: return .dns                      // G_IO_ERROR_HOST_NOT_FOUND
            default: return .other
            }
        case "WebKitNetworkError":
            if code == 302 { return .cancelled }
            if message.contains("redirection") { return .tooManyRedirects }
            return .other
        case "WebKitPolicyError":
            return code == 103 ? .blockedPort : .policy
        case "soup-session-error-quark":
            return code == 2 ? .tooManyRedirects : .other   // SOUP_SESSION_ERROR_TOO_MANY_REDIRECTS
        default:
            // WebKit's redirect limit comes with an empty domain and code 0.
            if message.contains("cannot follow more than") { return .tooManyRedirects }
            if message.localizedCaseInsensitiveContains("connection reset")
                || message.localizedCaseInsensitiveContains("connection terminated unexpectedly") {
                return .connectionReset
            }
            return .other
        }
    }
}
