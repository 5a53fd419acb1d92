@testable import NavWatchGuard
import Testing

/// The guard's response framer (it reads an origin's bytes to find where a
/// response ends): the same ending whatever pieces the bytes come in, never
/// more bytes taken than given, and for responses built from parts, exactly
/// the response's bytes.
@Suite struct ResponseFramingFuzzTests {
    @Test("the response framer under generated input")
    func responseFraming() {
        FuzzTarget(name: "response-framing", dictionary: Self.dictionary, generators: [Self.generated],
                   oracles: [Self.builtResponse], maximumSize: 96 << 10, check: Self.check).run()
    }

    static let dictionary = [
        "HTTP/1.1 ", "HTTP/1.0 ", "200 OK", "100 Continue", "101 Switching Protocols", "204 ", "304 ", "\r\n", "\r\n\r\n",
        "Content-Length: ", "Transfer-Encoding: ", "chunked", "gzip, chunked", "Connection: ", "close", "keep-alive",
        "0\r\n\r\n", "5\r\nhello\r\n", ";ext=1", "ffffffffffffffff", "-1", "1, 1", ": ", ":", " ", "\t", "\0",
    ]

    /// What a framer made of some bytes.
    struct Ending: Equatable {
        var taken: Int
        var complete: Bool
        var reusable: Bool
        var atClose: Bool
    }

    static func frame(_ bytes: [UInt8], method: String, pieces: (Int) -> Int) -> Ending {
        var framer = ResponseFramer(requestMethod: method)
        var taken = 0, piece = 0
        while taken < bytes.count {
            let start = taken, end = min(bytes.count, taken + max(1, pieces(piece)))
            piece += 1
            let used = bytes[start..<end].withUnsafeBytes { framer.consume($0) }
            taken += used
            if used < end - start { break }
        }
        return Ending(taken: taken, complete: framer.isComplete, reusable: framer.isReusable, atClose: framer.endsAtClose)
    }

    static func check(_ bytes: [UInt8]) throws -> Bool {
        var complete = false
        for method in ["GET", "HEAD"] {
            let whole = frame(bytes, method: method) { _ in bytes.count }
            try require(whole.taken <= bytes.count, "took \(whole.taken) of \(bytes.count) bytes")
            try require(whole.complete || whole.taken == bytes.count, "stopped taking at \(whole.taken) before the end: \(whole)")
            try require(!whole.reusable || whole.complete, "reusable before the response ended: \(whole)")
            try require(!(whole.atClose && whole.complete), "both complete and waiting for the close: \(whole)")
            let seed = bytes.reduce(7) { ($0 &* 31 &+ Int($1)) & 0xFFFF }
            for pieces in [{ (_: Int) in 1 }, { (index: Int) in 1 + (index &* 7 &+ seed) % 13 }, { (index: Int) in 1 + (index &* 131 &+ seed) % 997 }] {
                let split = frame(bytes, method: method, pieces: pieces)
                try require(split == whole, "\(method) in pieces gives \(split), at once \(whole)")
            }
            complete = complete || whole.complete
        }
        return complete
    }

    /// A response from parts, odd ones included, with bytes after it.
    @Sendable static func generated(_ random: inout FuzzRandom) -> [UInt8] {
        var text = ""
        if random.oneIn(4) { text += random.pick(["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 103 Early Hints\r\nLink: <x>\r\n\r\n"]) }
        text += random.pick(["HTTP/1.1", "HTTP/1.0", "HTTP/2", "http/1.1", "HTTP/1.1 "]) + " "
            + random.pick(["200 OK", "204 No Content", "304 Not Modified", "101 Switching", "404", "099 X", "2000 X", "2x0 X"])
        for _ in 0..<random.below(5) {
            let name = random.pick(["Content-Length", "content-LENGTH", "Transfer-Encoding", "Connection", "X-Other", "Bad Name", ""])
            let value = random.pick(["0", "5", "12", " 5 ", "5, 5", "5,6", "-1", "99999999999999", "chunked", "gzip, chunked",
                                     "chunked, gzip", ",", "close", "Keep-Alive", "keep-alive, close", ""])
            text += "\r\n" + name + random.pick([":", ": ", " :", ":\t"]) + value
        }
        text += "\r\n\r\n"
        for _ in 0..<random.below(4) {
            text += random.pick(["hello", "5\r\nhello\r\n", "0\r\n\r\n", "3;x=y\r\nabc\r\n", "zz\r\n", "0\r\nT: 1\r\n\r\n", "\r\n"])
        }
        return Array(text.utf8)
    }

    /// A well-formed response of a known length (by length, chunked, or bodiless), then more bytes: the framer must take exactly the response.
    @Sendable static func builtResponse(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        var response = random.oneIn(5) ? "HTTP/1.1 100 Continue\r\n\r\n" : ""
        let closes = random.oneIn(4)
        let connection = closes ? "Connection: close\r\n" : random.pick(["", "Connection: keep-alive\r\n"])
        switch random.below(3) {
        case 0:
            let body = String(repeating: random.pick(["a", "\r\n", "0"]), count: random.below(300))
            response += "HTTP/1.1 200 OK\r\n\(connection)Content-Length: \(body.utf8.count)\r\n\r\n" + body
        case 1:
            response += "HTTP/1.1 200 OK\r\n\(connection)Transfer-Encoding: chunked\r\n\r\n"
            for _ in 0..<random.below(5) {
                let size = 1 + random.below(40)
                response += String(size, radix: 16, uppercase: random.oneIn(2)) + random.pick(["", ";a=b", " "]) + "\r\n"
                    + String(repeating: random.pick(["x", "\r", "\n"]), count: size) + "\r\n"
            }
            response += "0\r\n" + random.pick(["", "X-A: 1\r\n", "X-A: 1\r\nX-B: 2\r\n"]) + "\r\n"
        default:
            response += "HTTP/1.1 \(random.pick(["204 No Content", "304 Not Modified"]))\r\n\(connection)\r\n"
        }
        let bytes = Array(response.utf8)
        let extra = Array(random.pick(["", "HTTP/1.1 200 OK\r\n", "junk"]).utf8)
        return (bytes + extra, { _ in
            let ending = frame(bytes + extra, method: "GET") { _ in bytes.count + extra.count }
            try require(ending == Ending(taken: bytes.count, complete: true, reusable: !closes, atClose: false),
                        "framed as \(ending), not the \(bytes.count) bytes of the response")
        })
    }
}
