/// What the loopback server does with one request.
package indirect enum LoopbackResponse: Sendable {
    /// A complete response.
    case respond(status: Int, headers: [(String, String)], body: [UInt8])
    /// Reads the request and never answers.
    case hang
    /// Sends the status line and headers (announcing a long body), a little of
    /// the body, then resets the connection (TCP RST).
    case resetAfterHeaders
    /// Sends the status line, headers and the start of an HTML body, then
    /// neither sends more nor closes: the page commits and never finishes.
    case stallAfterHeaders
    /// Answers with `response` after `delay`.
    case delayed(Duration, LoopbackResponse)
    /// Sends the status line and headers (`Content-Type: text/html`, chunked),
    /// `start`, then `chunk` again and again, one a millisecond at most (as
    /// fast as the client reads, when it reads slower), until it closes the
    /// connection: a body without end. The server answers its other
    /// connections meanwhile.
    case endless(start: [UInt8], chunk: [UInt8])

    /// An HTML page.
    package static func html(_ html: String, status: Int = 200, headers: [(String, String)] = []) -> LoopbackResponse {
        .respond(status: status, headers: [("Content-Type", "text/html; charset=utf-8")] + headers, body: Array(html.utf8))
    }

    /// A plain-text body.
    package static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
                            headers: [(String, String)] = []) -> LoopbackResponse {
        .respond(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
    }

    /// A redirect to `location` (absolute or relative).
    package static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        .respond(status: status, headers: [("Location", location)], body: [])
    }
}

/// The parts of a request a route needs.
package struct LoopbackRequest: Sendable {
    package let method: String
    /// The path with its query, as sent (`/a/b?c=d`).
    package let uri: String
    package let headers: [(String, String)]

    /// The path without its query.
    package var path: String {
        String(uri.split(separator: "?", maxSplits: 1).first ?? "")
    }
}
