import Foundation
import Synchronization

/// The JSON line of a report made by `PageLoadReport.skipped` and left as
/// made, written from a template instead of by `JSONEncoder`: byte for
/// byte what the encoder writes, at a fraction of its cost. A page can have
/// a skipped link per link, and each skipped report is encoded to be stored
/// and again to be written out.
///
/// A template is the encoder's line of such a report with stand-ins for
/// the URL, the parent, the depth and the time, one per skip reason, with or
/// without a parent, found in a sitemap or not. A report whose URL or parent
/// has a character the encoder escapes is left to the encoder.
///
/// A stored line is read back the same way (`report(fromLine:)`): its values
/// are taken from between the template's pieces, and the line is taken only
/// when writing that report again gives it byte for byte; any other line is
/// left to the decoder.
enum SkippedReportJSON {
    /// What a template is for.
    private struct Shape: Hashable {
        var reason: PageLoadReport.SkipReason
        var hasParent: Bool
        var foundInSitemap: Bool
    }

    /// The template's text between its stand-ins, and which stand-in comes after each piece.
    private struct Template {
        var pieces: [String]
        var fields: [Field]
    }

    private enum Field: CaseIterable {
        case url, parent, depth, fetchedAt

        /// What stands in for the field in a template's report: text found nowhere else in its line.
        var standIn: String {
            switch self {
            case .url: "\u{1}url\u{1}"
            case .parent: "\u{1}parent\u{1}"
            case .depth: "-918273645"
            case .fetchedAt: "\u{1}time\u{1}"
            }
        }
    }

    private static let templates = Mutex<[Shape: Template?]>([:])

    /// The JSON line of `report`, when it is a skipped report as made and
    /// its URL and parent need no escapes; nil otherwise.
    static func line(of report: PageLoadReport) -> String? {
        guard report.outcome == .skipped, let reason = report.skipReason,
              isPlain(report.url), report.parent.map(isPlain) ?? true else { return nil }
        let entry = FrontierEntry(url: report.url, depth: report.depth, parent: report.parent,
                                  kind: report.foundInSitemap == true ? .sitemapPage : .page)
        guard report == .skipped(entry, reason, at: report.fetchedAt) else { return nil }
        let shape = Shape(reason: reason, hasParent: report.parent != nil, foundInSitemap: report.foundInSitemap == true)
        let found = templates.withLock { $0[shape] }
        guard let template = found ?? makeTemplate(shape) else { return nil }
        var line = template.pieces[0]
        for (field, piece) in zip(template.fields, template.pieces.dropFirst()) {
            switch field {
            case .url: line += report.url
            case .parent: line += report.parent ?? ""
            case .depth: line += String(report.depth)
            case .fetchedAt: line += Timestamp.string(report.fetchedAt)
            }
            line += piece
        }
        return line
    }

    /// The report whose line `line` is, when it is the line of a skipped
    /// report as made, as `line(of:)` writes it (checked by writing it
    /// again); nil otherwise, for the decoder. Reading a crawl's reports back
    /// is mostly decoding its skipped links'.
    static func report(fromLine line: String) -> PageLoadReport? {
        // Searched as bytes: Foundation's search of a `String` took longer than decoding.
        let bytes = Array(line.utf8)
        guard let reason = skipReason(in: bytes) else { return nil }
        // A plain value has no quote: these texts are keys.
        let shape = Shape(reason: reason, hasParent: position(of: "\"parent\":\"", in: bytes) != nil,
                          foundInSitemap: position(of: "\"found_in_sitemap\":true", in: bytes) != nil)
        let found = templates.withLock { $0[shape] }
        guard let template = found ?? makeTemplate(shape),
              let report = read(bytes, as: template, reason: reason, inSitemap: shape.foundInSitemap),
              Self.line(of: report) == line else { return nil }
        return report
    }

    /// The value of the line's `skip_reason`.
    private static func skipReason(in bytes: [UInt8]) -> PageLoadReport.SkipReason? {
        let key = "\"skip_reason\":\""
        guard let start = position(of: key, in: bytes).map({ $0 + key.utf8.count }),
              let end = position(of: "\"", in: bytes, from: start) else { return nil }
        return PageLoadReport.SkipReason(rawValue: String(decoding: bytes[start..<end], as: UTF8.self))
    }

    /// Where `text` first is in `bytes`, at `from` or after. (The C library's
    /// searches here and in `read`: they are as fast in a debug build, whose
    /// tests read 100,000 skipped reports, as in a release build.)
    private static func position(of text: String, in bytes: [UInt8], from: Int = 0) -> Int? {
        var text = text
        return text.withUTF8 { needle in
            bytes.withUnsafeBytes { haystack -> Int? in
                guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else { return nil }
                var start = from
                let last = haystack.count - needle.count
                while start <= last, let found = memchr(base + start, Int32(first), last - start + 1) {
                    let at = base.distance(to: UnsafeRawPointer(found))
                    if memcmp(base + at, needle.baseAddress!, needle.count) == 0 { return at }
                    start = at + 1
                }
                return nil
            }
        }
    }

    /// The skipped report whose line `bytes` would be if `template` wrote it; nil when its pieces are not there.
    private static func read(_ bytes: [UInt8], as template: Template, reason: PageLoadReport.SkipReason,
                             inSitemap: Bool) -> PageLoadReport? {
        bytes.withUnsafeBytes { line -> PageLoadReport? in
            guard let base = line.baseAddress else { return nil }
            var position = 0
            func take(_ piece: String) -> Bool {
                var piece = piece
                return piece.withUTF8 { expected in
                    guard line.count - position >= expected.count,
                          expected.isEmpty || memcmp(base + position, expected.baseAddress!, expected.count) == 0 else { return false }
                    position += expected.count
                    return true
                }
            }
            guard take(template.pieces[0]) else { return nil }
            var url: String?, parent: String?, depth: Int?, fetchedAt: Date?
            for (field, piece) in zip(template.fields, template.pieces.dropFirst()) {
                // A value ends at the first quote (a string's) or comma (the depth's): none is in a plain value.
                let stop = Int32(UInt8(ascii: field == .depth ? "," : "\""))
                guard let found = memchr(base + position, stop, line.count - position) else { return nil }
                let end = base.distance(to: UnsafeRawPointer(found))
                let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[position..<end]), as: UTF8.self)
                position = end
                switch field {
                case .url: url = value
                case .parent: parent = value
                case .depth: depth = Int(value)
                case .fetchedAt: fetchedAt = Timestamp.date(value)
                }
                guard take(piece) else { return nil }
            }
            guard position == line.count, let url, let depth, let fetchedAt,
                  template.fields.contains(.parent) == (parent != nil) else { return nil }
            return .skipped(FrontierEntry(url: url, depth: depth, parent: parent, kind: inSitemap ? .sitemapPage : .page), reason,
                            at: fetchedAt)
        }
    }

    /// The template of `shape`, remembered; nil when its line has a stand-in other than once.
    private static func makeTemplate(_ shape: Shape) -> Template? {
        let entry = FrontierEntry(url: Field.url.standIn, depth: Int(Field.depth.standIn)!,
                                  parent: shape.hasParent ? Field.parent.standIn : nil,
                                  kind: shape.foundInSitemap ? .sitemapPage : .page)
        var report = PageLoadReport.skipped(entry, shape.reason)
        let date = Timestamp.string(report.fetchedAt)
        report.fetchedAt = Timestamp.date(date) ?? report.fetchedAt
        var text = report.jsonLine(by: PageLoadReport.encoder)
        // The time is written as `Timestamp` writes it: found by its text.
        guard text.components(separatedBy: date).count == 2 else { return remember(nil, for: shape) }
        text = text.replacingOccurrences(of: date, with: Field.fetchedAt.standIn)
        // As the line has them: the strings escaped, the time and depth as put in.
        let written = Dictionary(uniqueKeysWithValues: Field.allCases.map { field in
            guard field == .url || field == .parent else { return (field, field.standIn) }
            let encoded = String(decoding: (try? JSONEncoder().encode(field.standIn)) ?? Data(), as: UTF8.self)
            return (field, String(encoded.dropFirst().dropLast()))
        })
        var pieces: [String] = [], fields: [Field] = []
        var rest = Substring(text)
        while true {
            let next = Field.allCases.compactMap { field in rest.range(of: written[field]!).map { (field, $0) } }
                .min { $0.1.lowerBound < $1.1.lowerBound }
            guard let (field, range) = next else { break }
            pieces.append(String(rest[..<range.lowerBound]))
            fields.append(field)
            rest = rest[range.upperBound...]
        }
        pieces.append(String(rest))
        let expected: [Field] = shape.hasParent ? [.url, .parent, .depth, .fetchedAt] : [.url, .depth, .fetchedAt]
        guard fields.sorted(by: { "\($0)" < "\($1)" }) == expected.sorted(by: { "\($0)" < "\($1)" }) else {
            return remember(nil, for: shape)
        }
        return remember(Template(pieces: pieces, fields: fields), for: shape)
    }

    private static func remember(_ template: Template?, for shape: Shape) -> Template? {
        templates.withLock { $0[shape] = .some(template) }
        return template
    }

    /// Whether `text` is written in JSON as it is: printable ASCII without `"` or `\`.
    private static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
