import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The test cases, failures and skips of a JUnit XML document, which must parse.
struct JUnitCounts: Equatable {
    var testcases = 0, failures = 0, skipped = 0

    init(testcases: Int, failures: Int, skipped: Int) {
        (self.testcases, self.failures, self.skipped) = (testcases, failures, skipped)
    }

    init(_ data: Data) throws {
        let delegate = Counter()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        self = delegate.counts
    }

    private final class Counter: NSObject, XMLParserDelegate {
        var counts = JUnitCounts(testcases: 0, failures: 0, skipped: 0)
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch name {
            case "testcase": counts.testcases += 1
            case "failure": counts.failures += 1
            case "skipped": counts.skipped += 1
            default: break
            }
        }
    }
}
