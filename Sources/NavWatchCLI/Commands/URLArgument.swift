import Foundation
import NavWatch

/// Turns what a person typed into a URL WebKit can load, or says why not.
package enum URLArgument {
    /// `example.org` becomes `https://example.org`; anything that is not a
    /// URL, or has a scheme WebKit cannot load, throws a one-line reason.
    package static func parse(_ text: String) throws(InputError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw InputError("an empty URL was given") }
        // `host:8080/x` is a host and port, not a scheme; `about:blank` and
        // `mailto:x` are schemes.
        let hasScheme = trimmed.contains("://")
            || (trimmed.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:", options: .regularExpression) != nil
                && trimmed.range(of: "^[^/:]+:[0-9]+(/|$)", options: .regularExpression) == nil)
        let candidate = hasScheme ? trimmed : "https://" + trimmed
        guard let url = URL(string: candidate), let scheme = url.scheme?.lowercased() else {
            throw InputError("\"\(text)\" is not a URL")
        }
        guard WebView.loadableSchemes.contains(scheme) else {
            throw InputError("cannot load \"\(text)\": the \(scheme): scheme is not supported (use http or https)")
        }
        if scheme == "http" || scheme == "https" {
            guard let host = url.host, !host.isEmpty, !host.contains(" ") else {
                throw InputError("\"\(text)\" is not a URL: it has no host")
            }
        }
        return url
    }
}
