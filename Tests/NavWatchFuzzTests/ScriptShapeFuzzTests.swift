import Foundation
import NavWatchHTML
import Testing

/// The shape of inline scripts (`ScriptShape`), which groups strangers'
/// pages into kinds: it never crashes, takes time linear in the script's
/// size, is at most twice as long as the script, and two scripts made from
/// one template with other literal values (strings with escapes, templates
/// that interpolate, numbers) have one shape. (A shape need not be its own
/// shape: whether a `/` starts a regular expression depends on the rest of
/// its line, which shaping changes.)
@Suite struct ScriptShapeFuzzTests {
    @Test("inline script shapes under generated input")
    func scriptShape() {
        FuzzTarget(name: "script-shape", dictionary: Self.dictionary, generators: [{ Array(Self.filled(Self.template(&$0), &$0).utf8) }],
                   oracles: [Self.sameTemplate], maximumSize: 16 << 10, check: Self.check).run()
    }

    static let dictionary = ["'", "\"", "`", "${", "}", "{", "\\", "//", "/*", "*/", "\n", "\r", " ", "\t", "0x", "1e-", "10n",
                             ".5", "$", "_", "initNavTree(", ");", "\u{E9}", "\u{1F600}", "/", "*"]

    /// What shaping `bytes` may take: 50 ms and 20 µs a byte, well above a
    /// debug build's slowest inputs (a line of `[/` that opens regular
    /// expressions that never close, each read up to 256 bytes), far below a
    /// quadratic pace (seconds at this size).
    static func allowance(for bytes: Int) -> Duration {
        .milliseconds(50) + .microseconds(20 * bytes)
    }

    static func check(_ bytes: [UInt8]) throws -> Bool {
        let script = String(decoding: bytes, as: UTF8.self)
        let clock = ContinuousClock(), started = clock.now
        let shape = ScriptShape.of(script)
        let took = clock.now - started
        try require(took < allowance(for: bytes.count), "\(bytes.count) bytes took \(took)")
        // Each literal is at least one byte, its placeholder two; a literal cut by its line's end is followed by a space.
        try require(shape.utf8.count <= 2 * script.utf8.count, "a shape over twice its script's length: \(shape.prefix(200))")
        return true
    }

    /// A piece of a template: code, or a hole for a string or a number.
    enum Piece: Sendable { case code(String), string, number }

    /// Code with holes where a literal goes.
    static func template(_ random: inout FuzzRandom) -> [Piece] {
        (0..<(1 + random.below(12))).map { _ in
            switch random.below(6) {
            case 0: return .string
            case 1: return .number
            default:
                return .code(random.pick(["initNavTree(", ",", ")", "; ", "var a = ", "\n", "f(", "{", "}", " + ", "x.y",
                                          "return ", "// note\n", "/* c */", "[", "]", "\t", "h1"]))
            }
        }
    }

    /// `template` with a random literal in each hole; a number is set apart
    /// by a space (glued to a name, its digits would be the name's).
    static func filled(_ template: [Piece], _ random: inout FuzzRandom) -> String {
        template.map { piece in
            switch piece {
            case .code(let code): return code
            case .string: return string(&random)
            case .number: return " " + random.pick(["0x1F", "1.5e-3", "10n", "7", "0", "3.25", String(random.below(100_000))])
            }
        }.joined()
    }

    static func string(_ random: inout FuzzRandom) -> String {
        let text = (0..<random.below(6)).map { _ in
            random.pick(["a", "page.html", " ", "'", "\"", "`", "\\", "}", "{", "${", "/", "*", "//", "\u{E9}", "\u{1F600}", "9"])
        }.joined()
        switch random.below(3) {
        case 0: return "'" + escaped(text, quote: "'") + "'"
        case 1: return "\"" + escaped(text, quote: "\"") + "\""
        default: return "`" + escaped(text, quote: "`") + "${" + random.pick(["a", "b + 'c}'", "`in${x}`", "{k: 1}"]) + "}`"
        }
    }

    /// `text` escaped for a literal quoted with `quote`: backslashes, the quote, and (in templates) `${`.
    static func escaped(_ text: String, quote: Character) -> String {
        var out = ""
        for character in text {
            if character == "\\" || character == quote { out.append("\\") }
            if quote == "`", character == "$" { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// One template filled twice: one shape.
    @Sendable static func sameTemplate(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let holes = template(&random)
        let first = filled(holes, &random), second = filled(holes, &random)
        return (Array(first.utf8), { _ in
            try require(ScriptShape.of(first) == ScriptShape.of(second),
                        "\(first) is \(ScriptShape.of(first)) but \(second) is \(ScriptShape.of(second))")
        })
    }
}
