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

    private func report(status: Int?, errorKind: NavigationError.Kind? = nil) -> PageLoadReport {
        var report = PageLoadReport(url: url.absoluteString, depth: 1, parent: nil, outcome: status.map { $0 >= 400 ? .httpError : .ok } ?? .failed)
        report.status = status
        report.title = "the guard's page"
        report.links = 2
        if let errorKind {
            report.error = .init(NavigationError(kind: errorKind, domain: "test", code: 0, message: "m", failingURL: url))
        }
        return report
    }

    private func line(_ report: PageLoadReport) -> String {
        "\(report.outcome.rawValue) \(report.skipReason?.rawValue ?? "-") \(report.status.map(String.init) ?? "-") "
            + "\(report.error.map { "\($0.kind): \($0.message)" } ?? "-") links \(report.links) title \(report.title ?? "-")"
    }

    @Test("the guard's 403, or a refused tunnel, makes the page blocked")
    func blockedPage() {
        for start in [report(status: 403), report(status: nil, errorKind: .policy)] {
            var report = start
            report.applyGuard(blocked, at: url)
            #expect(line(report) == "blocked private-address - policy: internal.example is at 10.0.0.5 (private) links 0 title -")
        }
    }

    @Test("the guard's 502, or a failed tunnel, becomes a failure of the guard's kind")
    func unreachable() {
        for start in [report(status: 502), report(status: nil, errorKind: .policy)] {
            var report = start
            report.applyGuard(unresolved, at: url)
            #expect(line(report) == "failed - - dns: cannot reach internal.example:8080 (dns) links 0 title -")
        }
    }

    @Test("an answer of the server's own, or WebKit's own error, is left alone")
    func leftAlone() {
        for (start, verdict) in [(report(status: 200), blocked), (report(status: 404), unresolved),
                                 (report(status: 502), blocked), (report(status: 403), unresolved),
                                 (report(status: nil, errorKind: .blockedPort), unresolved),
                                 (report(status: 200), Optional<GuardVerdict>.none)] {
            var report = start
            report.applyGuard(verdict, at: url)
            #expect(report == start)
        }
    }
}
