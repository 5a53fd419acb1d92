/// Finds where one HTTP/1.x response ends in the bytes an origin sends, so
/// that the guard can carry the next request over the same connections. It
/// reads the bytes and never changes them: the guard forwards them as they
/// came.
///
/// The rules (RFC 9112, section 6.3):
/// - Interim responses (`1xx` but `101`) are followed by another head.
/// - An answer to `HEAD`, a `204` and a `304` end with their head.
/// - `Transfer-Encoding` ending in `chunked`: the chunks, a last chunk of
///   size 0 and the trailer fields up to an empty line.
/// - Otherwise one valid `Content-Length`: that many bytes.
/// - Anything else (no length, another transfer coding, conflicting
///   lengths, `101`, a head it cannot read, a head over 64 KiB, a bad chunk
///   line) ends only when the origin closes: `endsAtClose`. That is always
///   safe: it is what the guard did with every response before.
///
/// `isReusable` says whether, once ended, both connections may carry
/// another request: HTTP/1.1, no `Connection: close`, framed by length.
struct ResponseFramer {
    /// The largest response head read; a larger one ends at close.
    static let maximumHeadSize = 64 * 1024
    /// The largest chunk size or length believed: 1 TiB.
    static let largestLength = 1 << 40

    private enum State {
        /// The head so far.
        case head([UInt8])
        case body(remaining: Int)
        /// A chunk-size line: its value so far, and whether its digits ended (an extension or spaces follow).
        case chunkSize(value: Int, digits: Int, digitsEnded: Bool)
        case chunkData(remaining: Int)
        /// The CRLF after a chunk's data: how many of its bytes came.
        case chunkDataEnd(seen: Int)
        /// Trailer fields: the length of the current line so far (CR aside).
        case trailers(lineLength: Int)
        case untilClose
        case complete
    }

    private var state = State.head([])
    private let isHeadRequest: Bool
    /// Set by the final head: no `Connection: close`, HTTP/1.1.
    private var allowsReuse = false

    /// - Parameter requestMethod: the method of the request this answers.
    init(requestMethod: String) {
        isHeadRequest = requestMethod == "HEAD"
    }

    /// Whether the response has ended.
    var isComplete: Bool {
        if case .complete = state { true } else { false }
    }

    /// Whether the response ends only when the origin closes.
    var endsAtClose: Bool {
        if case .untilClose = state { true } else { false }
    }

    /// Whether both connections may carry another request once it is complete.
    var isReusable: Bool { isComplete && allowsReuse }

    /// Reads `bytes`, the next ones the origin sent; returns how many of
    /// them belong to this response (fewer than all only once it is complete).
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Int {
        var index = 0
        while index < bytes.count {
            switch state {
            case .complete:
                return index
            case .untilClose:
                return bytes.count
            case .head(var head):
                state = .untilClose  // while `head` is being added to, nothing else holds it
                let searchFrom = max(0, head.count - 3)
                let taken = min(bytes.count - index, Self.maximumHeadSize - head.count)
                head.append(contentsOf: bytes[index..<(index + taken)])
                if let end = HTTPText.endOfHead(in: head, from: searchFrom).map({ $0 + 4 }) {
                    // What came after the empty line is the body's.
                    index += taken - (head.count - end)
                    head.removeSubrange((end - 4)...)
                    beginBody(afterHead: head)
                } else if head.count >= Self.maximumHeadSize {
                    return bytes.count
                } else {
                    index += taken
                    state = .head(head)
                }
            case .body(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                state = taken == remaining ? .complete : .body(remaining: remaining - taken)
            case .chunkData(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                state = taken == remaining ? .chunkDataEnd(seen: 0) : .chunkData(remaining: remaining - taken)
            case .chunkDataEnd(let seen):
                let expected: UInt8 = seen == 0 ? 13 : 10
                guard bytes[index] == expected else {
                    state = .untilClose
                    return bytes.count
                }
                index += 1
                state = seen == 0 ? .chunkDataEnd(seen: 1) : .chunkSize(value: 0, digits: 0, digitsEnded: false)
            case .chunkSize(var value, var digits, var digitsEnded):
                let byte = bytes[index]
                index += 1
                if byte == 10 {
                    guard digits > 0 else {
                        state = .untilClose
                        return bytes.count
                    }
                    state = value == 0 ? .trailers(lineLength: 0) : .chunkData(remaining: value)
                } else if !digitsEnded, let digit = Self.hexValue(byte) {
                    value = value * 16 + digit
                    digits += 1
                    guard value <= Self.largestLength else {
                        state = .untilClose
                        return bytes.count
                    }
                    state = .chunkSize(value: value, digits: digits, digitsEnded: false)
                } else if byte == 13 || byte == 59 || byte == 32 || byte == 9 || digitsEnded {
                    // `;extension`, white space before it, the CR of the line end.
                    digitsEnded = true
                    state = .chunkSize(value: value, digits: digits, digitsEnded: digitsEnded)
                } else {
                    state = .untilClose
                    return bytes.count
                }
            case .trailers(let lineLength):
                let byte = bytes[index]
                index += 1
                if byte == 10 {
                    state = lineLength == 0 ? .complete : .trailers(lineLength: 0)
                } else if byte == 13 {
                    state = .trailers(lineLength: lineLength)
                } else if lineLength >= Self.maximumHeadSize {
                    state = .untilClose
                    return bytes.count
                } else {
                    state = .trailers(lineLength: lineLength + 1)
                }
            }
        }
        return index
    }

    /// Decides how the body is framed from a complete head (without its empty line).
    private mutating func beginBody(afterHead head: [UInt8]) {
        var lines = HTTPText.lines(head[...])
        // "HTTP/1.x SSS" and then a reason phrase, or nothing.
        let statusLine = lines.removeFirst()
        let version = statusLine.prefix(8)
        let digits = statusLine.dropFirst(9).prefix(3)
        guard version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8),
              statusLine.count >= 12, statusLine[statusLine.startIndex + 8] == 32,
              statusLine.count == 12 || statusLine[statusLine.startIndex + 12] == 32,
              digits.allSatisfy({ $0 >= 48 && $0 <= 57 }), digits.first != 48 else {
            state = .untilClose
            return
        }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        if (100...199).contains(status) {
            // An interim answer; the final one follows. 101 hands the connection to another protocol.
            state = status == 101 ? .untilClose : .head([])
            return
        }
        var lengths: Set<Int> = [], lastCoding: ArraySlice<UInt8>?, closes = false, badLength = false
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else {
                state = .untilClose
                return
            }
            let name = line[..<colon], value = line[(colon + 1)...]
            let parts = value.split(separator: 44, omittingEmptySubsequences: false).map(HTTPText.trimmed)
            if HTTPText.equalsIgnoringCase(name, "content-length") {
                for part in parts {
                    if !part.isEmpty, part.count <= 13, part.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                        lengths.insert(part.reduce(0) { $0 * 10 + Int($1 - 48) })
                    } else {
                        badLength = true
                    }
                }
            } else if HTTPText.equalsIgnoringCase(name, "transfer-encoding") {
                // A field with no coding in it still rules the length out: it ends at close.
                lastCoding = parts.last(where: { !$0.isEmpty }) ?? lastCoding ?? []
            } else if HTTPText.equalsIgnoringCase(name, "connection") {
                closes = closes || parts.contains { HTTPText.equalsIgnoringCase($0, "close") }
            }
        }
        allowsReuse = version.elementsEqual("HTTP/1.1".utf8) && !closes
        if isHeadRequest || status == 204 || status == 304 {
            state = .complete
        } else if let lastCoding {
            state = HTTPText.equalsIgnoringCase(lastCoding, "chunked") ? .chunkSize(value: 0, digits: 0, digitsEnded: false)
                : .untilClose
        } else if !badLength, lengths.count == 1, let length = lengths.first, length <= Self.largestLength {
            state = length == 0 ? .complete : .body(remaining: length)
        } else {
            state = .untilClose
        }
        if case .untilClose = state { allowsReuse = false }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte - 48)
        case 65...70: Int(byte - 55)
        case 97...102: Int(byte - 87)
        default: nil
        }
    }
}
