/// The shape of an inline script: its text with the values taken out, so
/// that a template's script that carries each page's own name, path or
/// number has one shape on every page the template made
/// (`initNavTree('functions_x.html','')` and
/// `initNavTree('globals_n.html','')` are both `initNavTree("","")`).
///
/// What is taken out:
/// - string literals (`'…'`, `"…"`, template literals `` `…` `` with what
///   they interpolate) become `""`;
/// - numbers (`42`, `0x1F`, `1.5e3`) become `0`;
/// - comments are dropped, and each run of white space becomes one space
///   (one line feed where the run, or a comment in it, held a line break).
///
/// Everything else stays: names, keywords, operators, punctuation and
/// regular expression literals (as written), so two scripts that call
/// other functions, or the same ones in another order, have other shapes.
/// A `/` starts a regular expression where an operand is expected (at the
/// start, after an operator or punctuation other than `)` and `]`, after a
/// keyword such as `return`) and it closes on its line, else it divides.
/// Pure, total on any text: an unterminated `'…'` or `"…"` string or `//`
/// comment ends with its line; an unterminated template or `/*` comment
/// ends the script.
package enum ScriptShape {
    /// The shape of `script`.
    package static func of(_ script: String) -> String {
        let bytes = Array(script.utf8)
        var input = bytes[...]
        var shape: [UInt8] = []
        shape.reserveCapacity(input.count)
        // White space before the next token: nil, a space, or a line feed when the run held a line break
        // (kept, as a line's end ends a regular expression literal).
        var pending: UInt8?
        func emit(_ byte: UInt8, twice: Bool = false) {
            if let pending, !shape.isEmpty { shape.append(pending) }
            pending = nil
            shape.append(byte)
            if twice { shape.append(byte) }
        }
        func separate(lineBreak: Bool) {
            pending = lineBreak || pending == lineFeed ? lineFeed : space
        }
        while let byte = input.first {
            switch byte {
            case space, tab, lineFeed, carriageReturn, formFeed, verticalTab:
                input.removeFirst()
                separate(lineBreak: byte == lineFeed || byte == carriageReturn)
            case slash where input.dropFirst().first == slash:
                while let next = input.first, next != lineFeed, next != carriageReturn { input.removeFirst() }
                separate(lineBreak: false)
            case slash where input.dropFirst().first == star:
                input.removeFirst(2)
                var lineBreak = false
                while !input.isEmpty, !(input.first == star && input.dropFirst().first == slash) {
                    lineBreak = lineBreak || input.first == lineFeed || input.first == carriageReturn
                    input.removeFirst()
                }
                input = input.dropFirst(2)
                separate(lineBreak: lineBreak)
            case slash where regexMayStart(after: shape):
                // A regular expression as written; without its closing `/` on the line, a plain `/`.
                let start = input.startIndex
                if skipRegex(&input) {
                    emit(slash)
                    shape.append(contentsOf: bytes[(start + 1)..<input.startIndex])
                } else {
                    input = bytes[(start + 1)...]
                    emit(slash)
                }
            case singleQuote, doubleQuote:
                skipString(&input, quote: byte)
                emit(doubleQuote, twice: true)
            case backtick:
                skipTemplate(&input)
                emit(doubleQuote, twice: true)
            case _ where isDigit(byte) && (pending != nil || !(shape.last.map(isIdentifierByte) ?? false)):
                // A number: digits, letters (hex, exponents, `n`), dots and
                // underscores, and a sign right after a decimal exponent's `e`.
                var previous = byte
                input.removeFirst()
                let radix = byte == zero && input.first.map { "xXbBoO".utf8.contains($0) } == true
                while let next = input.first,
                      isIdentifierByte(next) || next == dot
                      || (!radix && (next == plus || next == minus) && (previous == 0x65 || previous == 0x45)) {
                    previous = next
                    input.removeFirst()
                }
                emit(zero)
            default:
                input.removeFirst()
                emit(byte)
            }
        }
        return String(decoding: shape, as: UTF8.self)
    }

    /// Whether a `/` after `shape` starts a regular expression: where an
    /// operand is expected, not after a value (a name, a number, a string,
    /// `)` or `]`), but for the keywords after which an operand comes.
    private static func regexMayStart(after shape: [UInt8]) -> Bool {
        guard let last = shape.last(where: { $0 != space && $0 != lineFeed }) else { return true }
        if last == closeParenthesis || last == closeBracket || last == doubleQuote { return false }
        guard isIdentifierByte(last) else { return true }
        let end = shape.lastIndex(where: { $0 != space && $0 != lineFeed })! + 1
        let start = shape[..<end].lastIndex(where: { !isIdentifierByte($0) }).map { $0 + 1 } ?? 0
        return operandKeywords.contains(String(decoding: shape[start..<end], as: UTF8.self))
    }

    private static let longestRegex = 256

    private static let operandKeywords: Set<String> = ["return", "typeof", "case", "in", "of", "new", "delete", "void",
                                                        "throw", "yield", "await", "instanceof", "do", "else"]

    /// Skips a regular expression literal (escapes and `[…]` classes read
    /// whole) with its flags; returns whether it was closed on its line
    /// within `longestRegex` bytes (a longer one is read as a `/`, so that
    /// a line of `/`s that close nothing takes linear time).
    private static func skipRegex(_ input: inout ArraySlice<UInt8>) -> Bool {
        var index = input.startIndex + 1
        let limit = min(input.endIndex, index + longestRegex)
        var inClass = false
        while index < limit {
            let byte = input[index]
            index += 1
            if byte == lineFeed || byte == carriageReturn { return false }
            if byte == backslash {
                if index < limit, input[index] != lineFeed, input[index] != carriageReturn { index += 1 }
            } else if byte == openBracket {
                inClass = true
            } else if byte == closeBracket {
                inClass = false
            } else if byte == slash, !inClass {
                while index < input.endIndex, isIdentifierByte(input[index]) { index += 1 }
                input = input[index...]
                return true
            }
        }
        return false
    }

    /// Skips a `'` or `"` string literal: to its closing quote, or to the
    /// line's end where it has none (a string cannot span lines unescaped).
    private static func skipString(_ input: inout ArraySlice<UInt8>, quote: UInt8) {
        input.removeFirst()
        while let byte = input.first, byte != lineFeed, byte != carriageReturn {
            input.removeFirst()
            if byte == quote { return }
            if byte == backslash, !input.isEmpty { input.removeFirst() }
        }
    }

    /// Skips a template literal, with the expressions it interpolates
    /// (nested braces, strings and templates included).
    private static func skipTemplate(_ input: inout ArraySlice<UInt8>) {
        input.removeFirst()
        while let byte = input.first {
            input.removeFirst()
            switch byte {
            case backtick:
                return
            case backslash:
                if !input.isEmpty { input.removeFirst() }
            case dollar where input.first == openBrace:
                input.removeFirst()
                var depth = 1
                while depth > 0, let inner = input.first {
                    switch inner {
                    case openBrace: depth += 1; input.removeFirst()
                    case closeBrace: depth -= 1; input.removeFirst()
                    case singleQuote, doubleQuote: skipString(&input, quote: inner)
                    case backtick: skipTemplate(&input)
                    default: input.removeFirst()
                    }
                }
            default:
                break
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= nine
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || isDigit(byte)
            || byte == 0x5F || byte == dollar || byte >= 0x80
    }

    private static let space: UInt8 = 0x20, tab: UInt8 = 0x09, lineFeed: UInt8 = 0x0A, carriageReturn: UInt8 = 0x0D
    private static let formFeed: UInt8 = 0x0C, verticalTab: UInt8 = 0x0B
    private static let slash: UInt8 = 0x2F, star: UInt8 = 0x2A, backslash: UInt8 = 0x5C, dot: UInt8 = 0x2E
    private static let singleQuote: UInt8 = 0x27, doubleQuote: UInt8 = 0x22, backtick: UInt8 = 0x60, dollar: UInt8 = 0x24
    private static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D, plus: UInt8 = 0x2B, minus: UInt8 = 0x2D
    private static let zero: UInt8 = 0x30, nine: UInt8 = 0x39
    private static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D, closeParenthesis: UInt8 = 0x29
}
