import Foundation

/// A cookie of a view's storage, with Playwright's fields and JSON keys
/// (`Cookie` in its `storageState` files), so that its files can be read here and these there.
public struct Cookie: Sendable, Hashable, Codable {
    /// Whether a cross-site request carries the cookie.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// Only requests from the cookie's own site.
        case strict = "Strict"
        /// Also top-level navigations from other sites.
        case lax = "Lax"
        /// Every request (browsers ask for `secure` with it).
        case none = "None"
    }

    /// The cookie's name.
    public var name: String
    /// Its value, as the `Cookie` header sends it.
    public var value: String
    /// The host the cookie is sent to, or, with a leading dot (`.example.org`),
    /// that domain and every subdomain.
    public var domain: String
    /// The path the cookie is sent under; `/` by default.
    public var path: String
    /// When the cookie expires, in seconds since 1970-01-01 UTC; -1 (the
    /// default) for a cookie of the session, which lasts as long as the storage.
    public var expires: Double
    /// Whether the page's scripts cannot read it (`document.cookie`).
    public var httpOnly: Bool
    /// Whether it is sent over HTTPS only.
    public var secure: Bool
    /// Which cross-site requests carry it.
    public var sameSite: SameSite

    /// A cookie with these fields; a cookie of the session on `/` by default.
    public init(name: String, value: String, domain: String, path: String = "/", expires: Double = -1,
                httpOnly: Bool = false, secure: Bool = false, sameSite: SameSite = .lax) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
    }

    /// A cookie for `url`'s host only, under `path`, secure when `url` is
    /// https: Playwright's `{name, value, url}` form.
    ///
    /// - Throws: `WebViewError.invalidConfiguration` when `url` has no host.
    public init(name: String, value: String, url: URL, path: String = "/", expires: Double = -1,
                httpOnly: Bool = false, sameSite: SameSite = .lax) throws(WebViewError) {
        guard let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw .invalidConfiguration("the cookie \(name.debugDescription) is for \(url.absoluteString), which has no host")
        }
        self.init(name: name, value: value, domain: host, path: path, expires: expires, httpOnly: httpOnly,
                  secure: url.scheme?.lowercased() == "https", sameSite: sameSite)
    }

    /// Whether a request for `url` carries this cookie, by RFC 6265's rules:
    /// the host matches the domain, the path is under the cookie's, and a
    /// secure cookie goes over https only. Expiry is the storage's business.
    public func applies(to url: URL) -> Bool {
        guard let host = url.host(percentEncoded: false)?.lowercased() else { return false }
        if secure && url.scheme?.lowercased() != "https" { return false }
        let domain = domain.lowercased()
        if domain.hasPrefix(".") {
            let bare = domain.dropFirst()
            guard host == bare || host.hasSuffix(domain) else { return false }
        } else if host != domain {
            return false
        }
        let requestPath = url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true)
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).hasPrefix("/")
    }
}
