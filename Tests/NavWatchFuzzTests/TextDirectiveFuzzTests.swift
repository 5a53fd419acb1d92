import Foundation
@testable import NavWatchCrawler
import Testing

/// Text fragments as links write them (`[id]:~:text=…&text=…`): splitting
/// and parsing never fail on any text, a valid directive has non-empty terms,
/// and writing its terms back with escapes gives the same directive; terms
/// made from any text (commas, dashes, spaces, `&`, Unicode) come back as written.
@Suite struct TextDirectiveFuzzTests {
    @Test("text directives under generated input")
    func textDirective() {
        FuzzTarget(name: "text-fragment", dictionary: Self.dictionary, generators: [{ Array(Self.written(&$0).fragment.utf8) }],
                   oracles: [Self.roundTrip], maximumSize: 4 << 10, check: Self.check).run()
    }

    static let dictionary = [":~:", "text=", "&", "&text=", ",", "-,", ",-", "-", "%2C", "%2D", "%20", "%", "%%", "%FF", "%C3%A9",
                             "#", " ", "\u{E9}", "\u{1F600}", "=", ":~:text=", "usage"]

    static func check(_ bytes: [UInt8]) throws -> Bool {
        guard let (_, values) = TextDirective.split(fragment: String(decoding: bytes, as: UTF8.self)) else { return false }
        var accepted = false
        for value in values {
            guard let directive = TextDirective(value: value) else { continue }
            accepted = true
            let terms = [directive.prefix, directive.start, directive.end, directive.suffix].compactMap { $0 }
            try require(terms.allSatisfy { !$0.isEmpty }, "\(value) has an empty term: \(directive)")
            let again = TextDirective(value: write(directive))
            try require(again == directive, "\(value) is \(directive), written back as \(write(directive)): \(again.map(\.description) ?? "nil")")
        }
        return accepted
    }

    /// Everything but letters and digits escaped, as a careful writer of links does.
    private static let kept = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func write(_ directive: TextDirective) -> String {
        func escaped(_ term: String) -> String { term.addingPercentEncoding(withAllowedCharacters: kept)! }
        return [directive.prefix.map { escaped($0) + "-" }, escaped(directive.start), directive.end.map(escaped),
                directive.suffix.map { "-" + escaped($0) }].compactMap { $0 }.joined(separator: ",")
    }

    static func term(_ random: inout FuzzRandom) -> String {
        (0..<(1 + random.below(4))).map { _ in
            random.pick(["word", "Words", ",", "-", " ", "&", "#", "%", "e-mail", "a, b", "caf\u{E9}", "\u{1F600}", ":~:", "text="])
        }.joined()
    }

    /// A directive from random terms, and a fragment of two directives (the second one other text) that holds it.
    static func written(_ random: inout FuzzRandom) -> (directive: TextDirective, fragment: String) {
        let directive = TextDirective(prefix: random.oneIn(2) ? term(&random) : nil, start: term(&random),
                                      end: random.oneIn(2) ? term(&random) : nil, suffix: random.oneIn(2) ? term(&random) : nil)
        let element = random.pick(["", "", "usage"])
        return (directive, element + ":~:text=" + write(directive) + random.pick(["", "&text=other", "&note=1"]))
    }

    /// Any terms, escaped, come back as they were.
    @Sendable static func roundTrip(_ random: inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void) {
        let (directive, fragment) = written(&random)
        return (Array(fragment.utf8), { _ in
            let values = TextDirective.split(fragment: fragment)?.values ?? []
            try require(values.first.flatMap(TextDirective.init(value:)) == directive,
                        "\(fragment) does not give back \(directive): \(values)")
        })
    }
}
