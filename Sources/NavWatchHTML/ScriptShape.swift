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
/// - comments are dropped, and each run of white space becomes one space.
///
/// Everything else stays: names, keywords, operators, punctuation, so two
/// scripts that call other functions, or the same ones in another order,
/// have other shapes. Regular expression literals are read as code. Pure,
/// total on any text: an unterminated string or comment ends the script.
package enum ScriptShape {
    /// The shape of `script`.
    package static func of(_ script: String) -> String {
        var input = Array(script.utf8)[...]
        var shape: [UInt8] = []
        shape.reserveCapacity(input.count)
        var pendingSpace = false
        func emit(_ byte: UInt8, twice: Bool = false) {
            if pendingSpace, !shape.isEmpty { shape.append(space) }
            pendingSpace = false
            shape.append(byte)
            if twice { shape.append(byte) }
        }
        while let byte = input.first {
            switch byte {
            case space, tab, lineFeed, carriageReturn, formFeed, verticalTab:
                input.removeFirst()
                pendingSpace = true
            case slash where input.dropFirst().first == slash:
                while let next = input.first, next != lineFeed, next != carriageReturn { input.removeFirst() }
                pendingSpace = true
            case slash where input.dropFirst().first == star:
                input.removeFirst(2)
                while !input.isEmpty, !(input.first == star && input.dropFirst().first == slash) { input.removeFirst() }
                input = input.dropFirst(2)
                pendingSpace = true
            case singleQuote, doubleQuote:
                skipString(&input, quote: byte)
                emit(doubleQuote, twice: true)
            case backtick:
                skipTemplate(&input)
                emit(doubleQuote, twice: true)
            case _ where isDigit(byte) && (pendingSpace || !(shape.last.map(isIdentifierByte) ?? false)):
                // A number: digits, letters (hex, exponents, `n`), dots and
                // underscores, and a sign right after an exponent's `e`.
                var previous = byte
                input.removeFirst()
                while let next = input.first,
                      isIdentifierByte(next) || next == dot
                      || ((next == plus || next == minus) && (previous == 0x65 || previous == 0x45)) {
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
}
