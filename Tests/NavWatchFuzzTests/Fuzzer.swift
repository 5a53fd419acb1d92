import Foundation
import Testing

/// A fuzz pass: the seed corpus of one parser as it is, then `iterations`
/// inputs made from it by byte-level mutations (flip, insert, delete, splice,
/// repeat, truncate) and from structured generators, each checked against the
/// parser's properties.
///
/// Deterministic: a run is fixed by its seed. `Scripts/test` runs a bounded
/// pass; `Scripts/fuzz` a long one (`NAVWATCH_FUZZ_ITERATIONS`,
/// `NAVWATCH_FUZZ_SEED`). An input that breaks a property, crashes the process
/// or runs longer than `NAVWATCH_FUZZ_HANG_SECONDS` is printed escaped and
/// saved to `NAVWATCH_FUZZ_FAILURES` (a directory), ready for the corpus.
struct FuzzTarget: Sendable {
    /// The parser's name, also its directory under `Corpus/`.
    var name: String
    /// Tokens the mutations insert: the parser's keywords and delimiters.
    var dictionary: [String] = []
    /// Inputs built from parts rather than mutated bytes (and then mutated, a third of them).
    var generators: [@Sendable (inout FuzzRandom) -> [UInt8]] = []
    /// Inputs built from parts with what the parser must make of them, checked after `check`.
    var oracles: [@Sendable (inout FuzzRandom) -> (bytes: [UInt8], expect: @Sendable ([UInt8]) throws -> Void)] = []
    /// The largest input the mutations make.
    var maximumSize = 16 << 10
    /// Inputs of the bounded pass (`Scripts/test`) for a parser whose inputs
    /// are slow to check; nil: `FuzzSettings`'s. `NAVWATCH_FUZZ_ITERATIONS`
    /// (`Scripts/fuzz`) sets every parser's.
    var boundedIterations: Int?
    /// Throws `PropertyFailure` when the parser's answer to an input breaks a
    /// property; returns whether the parser accepted the input (rather than refused it).
    var check: @Sendable ([UInt8]) throws -> Bool

    /// Runs the pass and records a test issue per failing input (ten at most).
    func run() {
        var settings = FuzzSettings.current
        if !settings.iterationsGiven, let boundedIterations { settings.iterations = boundedIterations }
        let corpus = Corpus.inputs(name)
        #expect(!corpus.isEmpty, "no seed corpus for \(name)")
        var random = FuzzRandom(seed: settings.seed ^ FuzzRandom.hash(name))
        let mutator = Mutator(corpus: corpus, dictionary: dictionary.map { Array($0.utf8) }, maximumSize: maximumSize)
        let slot = CrashReport.slot(for: name)
        var survived = 0, accepted = 0, failures = 0, slowest = Duration.zero
        let clock = ContinuousClock(), started = clock.now
        for index in 0..<(corpus.count + settings.iterations) {
            let input: [UInt8]
            var expect: (@Sendable ([UInt8]) throws -> Void)?
            if index < corpus.count {
                input = corpus[index]
            } else if !oracles.isEmpty && random.oneIn(6) {
                (input, expect) = random.pick(oracles)(&random)
            } else if !generators.isEmpty && random.oneIn(3) {
                let generated = random.pick(generators)(&random)
                input = random.oneIn(3) ? mutator.mutate(generated, &random) : generated
            } else {
                input = mutator.mutate(corpus[random.below(corpus.count)], &random)
            }
            slot.begin(input)
            let before = clock.now
            do {
                if try check(input) { accepted += 1 }
                try expect?(input)
                survived += 1
            } catch {
                failures += 1
                report(input, index: index, corpusCount: corpus.count, failure: error, settings: settings)
            }
            let took = clock.now - before
            slowest = max(slowest, took)
            if took > .seconds(1) {
                print("navwatch fuzz: \(name): input \(index) took \(took): \(Escaped(input))"
                      + (FuzzFailures.save(input, parser: name + "-slow").map { "\n  saved as \($0)" } ?? ""))
                fflush(nil)   // standard output is a pipe under Scripts/fuzz
            }
            slot.end()
            if failures == 10 { break }
            if settings.iterations >= 100_000, index > corpus.count, (index - corpus.count) % (settings.iterations / 10) == 0 {
                print("navwatch fuzz: \(name): \(index - corpus.count) inputs so far, \(failures) failed")
                fflush(nil)   // standard output is a pipe under Scripts/fuzz
            }
        }
        let seconds = (clock.now - started) / .milliseconds(1) / 1000, slowestMs = slowest / .microseconds(1) / 1000
        print("navwatch fuzz: \(name): \(survived) inputs survived (\(accepted) accepted), \(failures) failed (seed \(settings.seed), "
              + "\(corpus.count) from the corpus, \(seconds.formatted(decimals: 1)) s, slowest input \(slowestMs.formatted(decimals: 1)) ms)")
    }

    private func report(_ input: [UInt8], index: Int, corpusCount: Int, failure: any Error, settings: FuzzSettings) {
        let origin = index < corpusCount ? "corpus entry \(index)" : "input \(index - corpusCount) of seed \(settings.seed)"
        let saved = FuzzFailures.save(input, parser: name)
        let message = "\(name): \(origin) broke a property: \(failure)\n  input (\(input.count) bytes): \(Escaped(input))"
            + (saved.map { "\n  saved as \($0)" } ?? "")
        print("navwatch fuzz: " + message)
        fflush(nil)   // standard output is a pipe under Scripts/fuzz
        Issue.record(Comment(rawValue: message))
    }
}

extension Double {
    fileprivate func formatted(decimals: Int) -> String { String(format: "%.\(decimals)f", self) }
}

/// A property an input broke.
struct PropertyFailure: Error, CustomStringConvertible {
    var description: String
}

/// Throws `PropertyFailure(message)` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(PropertyFailure) {
    if !condition { throw PropertyFailure(description: message()) }
}

/// The run's size and seed, from the environment.
struct FuzzSettings: Sendable {
    /// Mutated or generated inputs per parser, besides the corpus.
    var iterations: Int
    /// Whether `NAVWATCH_FUZZ_ITERATIONS` set `iterations`.
    var iterationsGiven: Bool
    var seed: UInt64
    /// How long one input may run before the pass is declared hung.
    var hangSeconds: Int

    static let current: FuzzSettings = {
        let environment = ProcessInfo.processInfo.environment
        let given = environment["NAVWATCH_FUZZ_ITERATIONS"].flatMap { Int($0) }
        return FuzzSettings(iterations: given ?? 4_000, iterationsGiven: given != nil,
                            seed: environment["NAVWATCH_FUZZ_SEED"].flatMap { UInt64($0) } ?? 1,
                            hangSeconds: environment["NAVWATCH_FUZZ_HANG_SECONDS"].flatMap { Int($0) } ?? 20)
    }()
}

/// The seed inputs of each parser: `Corpus/<parser>/*`, in name order.
enum Corpus {
    static func inputs(_ parser: String) -> [[UInt8]] {
        guard let directory = Bundle.module.url(forResource: "Corpus", withExtension: nil)?.appendingPathComponent(parser),
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.sorted().compactMap { try? [UInt8](Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}

/// Bytes as a C string literal: printable ASCII as is, `\r`, `\n`, `\t`,
/// `\"`, `\\`, and `\xHH` for every other byte.
struct Escaped: CustomStringConvertible {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var description: String {
        var text = "\""
        for byte in bytes { Self.escape(byte) { text.unicodeScalars.append(Unicode.Scalar($0)) } }
        return text + "\""
    }

    /// Calls `emit` with the escape of `byte`, an ASCII byte at a time (no allocation, for the crash handler).
    static func escape(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        switch byte {
        case 0x0D: emit(0x5C); emit(0x72)
        case 0x0A: emit(0x5C); emit(0x6E)
        case 0x09: emit(0x5C); emit(0x74)
        case 0x22, 0x5C: emit(0x5C); emit(byte)
        case 0x20...0x7E: emit(byte)
        default:
            let digits: StaticString = "0123456789abcdef"
            emit(0x5C); emit(0x78)
            emit(digits.utf8Start[Int(byte >> 4)]); emit(digits.utf8Start[Int(byte & 0xF)])
        }
    }
}

/// Where failing inputs are saved: `NAVWATCH_FUZZ_FAILURES`, by default
/// `navwatch-fuzz-failures` in the temporary directory.
enum FuzzFailures {
    static let directory: String = ProcessInfo.processInfo.environment["NAVWATCH_FUZZ_FAILURES"]
        ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("navwatch-fuzz-failures")

    /// Saves `input` as `<parser>-<hash>` and returns the path, or nil when it cannot.
    static func save(_ input: [UInt8], parser: String) -> String? {
        let path = (directory as NSString).appendingPathComponent("\(parser)-\(String(FuzzRandom.hash(input), radix: 16))")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(input).write(to: URL(fileURLWithPath: path))
            return path
        } catch {
            return nil
        }
    }
}

/// xoshiro256** seeded by SplitMix64: fast, and the same numbers on every machine.
struct FuzzRandom: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var split = seed
        func next() -> UInt64 {
            split &+= 0x9E37_79B9_7F4A_7C15
            var z = split
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next(upperBound: UInt64(bound))) }

    /// True once in `n` times.
    mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    /// An element of `elements` (not empty).
    mutating func pick<C: RandomAccessCollection>(_ elements: C) -> C.Element {
        elements[elements.index(elements.startIndex, offsetBy: below(elements.count))]
    }

    /// FNV-1a of `bytes`: a stable hash, for seeds and file names.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func hash(_ text: String) -> UInt64 { hash(text.utf8) }
}

/// Byte-level mutations of corpus entries, one to eight stacked.
struct Mutator {
    var corpus: [[UInt8]]
    var dictionary: [[UInt8]]
    var maximumSize: Int

    /// Bytes that parsers treat specially.
    private static let interesting: [UInt8] = Array("\r\n\t :/?#[]@%.*$<>&;\"'=,-_~\\".utf8) + [0, 0x7F, 0x80, 0xC3, 0xE2, 0xEF, 0xF0, 0xFF]

    func mutate(_ input: [UInt8], _ random: inout FuzzRandom) -> [UInt8] {
        var bytes = input
        var rounds = 1
        while rounds < 8 && random.oneIn(2) { rounds += 1 }
        for _ in 0..<rounds { mutateOnce(&bytes, &random) }
        if bytes.count > maximumSize { bytes.removeLast(bytes.count - maximumSize) }
        return bytes
    }

    private func mutateOnce(_ bytes: inout [UInt8], _ random: inout FuzzRandom) {
        let position = random.below(bytes.count + 1)   // an insertion point; a byte's index when < count
        switch random.below(12) {
        case 0 where position < bytes.count:   // flip a bit
            bytes[position] ^= 1 << UInt8(random.below(8))
        case 1 where position < bytes.count:   // an interesting byte
            bytes[position] = random.pick(Self.interesting)
        case 2 where position < bytes.count:   // any byte
            bytes[position] = UInt8.random(in: 0...255, using: &random)
        case 3:   // insert a few bytes
            bytes.insert(contentsOf: (0..<1 + random.below(4)).map { _ in
                random.oneIn(2) ? random.pick(Self.interesting) : UInt8.random(in: 0...255, using: &random)
            }, at: position)
        case 4 where !dictionary.isEmpty:   // insert a token
            bytes.insert(contentsOf: random.pick(dictionary), at: position)
        case 5 where !dictionary.isEmpty:   // overwrite with a token
            let token = random.pick(dictionary)
            bytes.replaceSubrange(position..<min(bytes.count, position + token.count), with: token)
        case 6 where position < bytes.count:   // delete a range
            let length = 1 + random.below(random.oneIn(8) ? bytes.count - position : min(16, bytes.count - position))
            bytes.removeSubrange(position..<position + length)
        case 7:   // splice in a piece of another entry
            let other = random.pick(corpus)
            guard !other.isEmpty else { return }
            let start = random.below(other.count), end = start + 1 + random.below(other.count - start)
            if random.oneIn(2) {
                bytes.insert(contentsOf: other[start..<end], at: position)
            } else {
                bytes.replaceSubrange(position..., with: other[start...])
            }
        case 8 where position < bytes.count:   // repeat a range
            let length = 1 + random.below(min(64, bytes.count - position))
            let chunk = bytes[position..<position + length]
            let times = random.oneIn(8) ? 1 + random.below(max(1, maximumSize / length)) : 1 + random.below(16)
            bytes.insert(contentsOf: repeatElement(chunk, count: min(times, max(1, (maximumSize - bytes.count) / length))).joined(),
                         at: position + length)
        case 9:   // truncate
            bytes.removeSubrange(position...)
        case 10 where position < bytes.count:   // change the case of an ASCII letter
            if (0x41...0x5A).contains(bytes[position] & ~0x20) { bytes[position] ^= 0x20 }
        case 11 where bytes.count > 1:   // swap two bytes
            bytes.swapAt(position % bytes.count, random.below(bytes.count))
        default:
            bytes.insert(random.pick(Self.interesting), at: position)
        }
    }
}
