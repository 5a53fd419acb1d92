@testable import NavWatchGuard
import Testing

/// Where the guard finds the end of a response: exact byte counts, whatever
/// pieces the bytes arrive in.
@Suite struct ResponseFramerTests {
    /// What feeding `response` to a framer came to: the bytes it took, and its ending.
    struct Framed: Equatable {
        var taken: Int
        var complete: Bool
        var reusable: Bool
        var atClose: Bool
    }

    /// Feeds `text` (then `extra`) in pieces of `pieceSize` bytes, stopping where the framer stops taking.
    static func frame(_ text: String, extra: String = "", method: String = "GET", pieceSize: Int = .max) -> Framed {
        var framer = ResponseFramer(requestMethod: method)
        let bytes = Array((text + extra).utf8)
        var taken = 0
        while taken < bytes.count {
            let piece = Array(bytes[taken..<min(bytes.count, taken + pieceSize)])
            let used = piece.withUnsafeBytes { framer.consume($0) }
            taken += used
            if used < piece.count { break }
        }
        return Framed(taken: taken, complete: framer.isComplete, reusable: framer.isReusable, atClose: framer.endsAtClose)
    }

    static let lengthResponse = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
    static let chunkedResponse = "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked\r\n\r\n"
        + "5;name=value\r\nhello\r\n1A \r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: yes\r\n\r\n"

    @Test("a Content-Length body ends after that many bytes, in any pieces", arguments: [1, 2, 3, 7, 1000])
    func contentLength(pieceSize: Int) {
        let next = "HTTP/1.1 200 OK\r\n"
        #expect(Self.frame(Self.lengthResponse, extra: next, pieceSize: pieceSize)
                == Framed(taken: Self.lengthResponse.utf8.count, complete: true, reusable: true, atClose: false))
        #expect(Self.frame(String(Self.lengthResponse.dropLast()), pieceSize: pieceSize)
                == Framed(taken: Self.lengthResponse.utf8.count - 1, complete: false, reusable: false, atClose: false))
    }

    @Test("a chunked body ends after its last chunk and trailers, in any pieces", arguments: [1, 2, 5, 1000])
    func chunked(pieceSize: Int) {
        #expect(Self.frame(Self.chunkedResponse, extra: "junk", pieceSize: pieceSize)
                == Framed(taken: Self.chunkedResponse.utf8.count, complete: true, reusable: true, atClose: false))
        let noTrailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        #expect(Self.frame(noTrailers, pieceSize: pieceSize)
                == Framed(taken: noTrailers.utf8.count, complete: true, reusable: true, atClose: false))
    }

    @Test("interim answers are followed by the real one; HEAD, 204 and 304 end with their head")
    func bodiless() {
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" + Self.lengthResponse
        #expect(Self.frame(interim, pieceSize: 3) == Framed(taken: interim.utf8.count, complete: true, reusable: true, atClose: false))
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
        #expect(Self.frame(head, extra: "hello", method: "HEAD")
                == Framed(taken: head.utf8.count, complete: true, reusable: true, atClose: false))
        for status in ["204 No Content", "304 Not Modified"] {
            let text = "HTTP/1.1 \(status)\r\nContent-Length: 5\r\n\r\n"
            #expect(Self.frame(text, extra: "hello") == Framed(taken: text.utf8.count, complete: true, reusable: true, atClose: false))
        }
        let empty = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        #expect(Self.frame(empty, extra: "x") == Framed(taken: empty.utf8.count, complete: true, reusable: true, atClose: false))
    }

    @Test("Connection: close and HTTP/1.0 end the connections after the response")
    func notReusable() {
        for text in ["HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 5\r\n\r\nhello",
                     "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"] {
            #expect(Self.frame(text) == Framed(taken: text.utf8.count, complete: true, reusable: false, atClose: false))
        }
    }

    @Test("what cannot be framed by length ends only at close", arguments: [
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello",                        // no length
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",          // two lengths
        "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello",                              // not a length
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\nhello",                  // beyond belief
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello",   // a coding not chunked
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: ,\r\nContent-Length: 5\r\n\r\nhello",       // a coding field with no coding
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello",                 // no chunk size
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXY0\r\n\r\n",       // no CRLF after the data
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nframes",             // another protocol
        "HTTP/2 200 OK\r\nContent-Length: 5\r\n\r\nhello",                                 // not HTTP/1.x
        "HTTP/1.1 20 OK\r\nContent-Length: 5\r\n\r\nhello",                                // not a status
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\nhello",                                   // not a field
    ])
    func endsAtClose(text: String) {
        #expect(Self.frame(text, pieceSize: 4) == Framed(taken: text.utf8.count, complete: false, reusable: false, atClose: true))
    }

    @Test("a head over 64 KiB ends only at close")
    func oversizedHead() {
        let text = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: ResponseFramer.maximumHeadSize) + "\r\n\r\n"
        #expect(Self.frame(text, pieceSize: 4096) == Framed(taken: text.utf8.count, complete: false, reusable: false, atClose: true))
    }
}
