import Foundation
import NavWatch
@testable import NavWatchCrawler
import NavWatchGuard
import Testing

@Suite("What the private-address guard answered, in a report")
struct PageLoadReportGuardTests {
    private let url = URL(string: "http://internal.example:8080/admin")!
    private var blocked: GuardVerdict {
        .blocked(BlockedRequest(host: "internal.example", port: 8080, address: "10.0.0.5", kind: .private,
                                url: url, date: Date()))
    }
    private var unresolved: GuardVerdict {
        .failed(ProxyFailure(host: "internal.example", port: 8080, url: url, kind: .dns, date: Date()))
    }

    /// The report of a page whose last request got `status` (or the error
    /// `errorKind`), with the guard's `verdict` about it.
    private func report(status: Int?, errorKind: NavigationError.Kind? = nil, _ verdict: GuardVerdict?) -> PageLoadReport? {
        guard let answer = PageLoadReport.GuardAnswer(verdict, status: status, errorKind: errorKind, viaTunnel: false)
        else { return nil }
        var report = PageLoadReport(url: url.absoluteString, depth: 1, parent: nil, outcome: .failed)
        report.record(answer, at: url, answeredFrom: nil)
        return report
    }

    private func line(_ report: PageLoadReport) -> String {
        "\(report.outcome.rawValue) \(report.skipReason?.rawValue ?? "-") \(report.status.map(String.init) ?? "-") "
            + "\(report.error.map { "\($0.kind.rawValue): \($0.message)" } ?? "-") links \(report.links) title \(report.title ?? "-")"
    }

    @Test("the guard's 403, or a refused tunnel, makes the page blocked")
    func blockedPage() throws {
        for report in [report(status: 403, blocked), report(status: nil, errorKind: .policy, blocked)] {
            let report = try #require(report)
            #expect(line(report) == "blocked private-address - policy: internal.example is at 10.0.0.5 (private) links 0 title -")
            #expect(report.finalURL == url.absoluteString)
        }
    }

    @Test("the guard's 502, or a failed tunnel, becomes a failure of the guard's kind")
    func unreachable() throws {
        for report in [report(status: 502, unresolved), report(status: nil, errorKind: .policy, unresolved)] {
            let report = try #require(report)
            #expect(line(report) == "failed - - dns: cannot reach internal.example:8080 (dns) links 0 title -")
        }
    }

    @Test("an answer of the server's own, or WebKit's own error, is no answer of the guard's")
    func leftAlone() {
        #expect(report(status: 200, blocked) == nil && report(status: 404, unresolved) == nil)
        #expect(report(status: 502, blocked) == nil && report(status: 403, unresolved) == nil)
        #expect(report(status: nil, errorKind: .blockedPort, unresolved) == nil && report(status: 200, nil) == nil)
    }
}
