import Foundation
import LoopbackServer
import NavWatchTestSupport
import PageCheckerExample
import Testing

@Suite("The ReactiveCompatible example")
struct PageCheckerTests {
    @Test("rx.check turns each check into a value, failures included, then ends")
    func checks() async throws {
        let server = try await LoopbackServer.start(route: FixtureSite.route)
        defer { Task { await server.shutdown() } }
        var results: [String] = []
        for await result in PageChecker().rx.check([server.url("/push"), URL(string: "http://127.0.0.1:1/")!, server.url("/status/404")]) {
            switch result {
            case .success(let report): results.append("\(report.status) \(report.title) \(report.links)")
            case .failure(let error): results.append("failed \((error as? PageChecker.CheckFailed)?.kind.rawValue ?? "\(error)")")
            }
        }
        #expect(results == ["200 Push 1", "failed blocked-port", "404 Missing 0"])
    }
}
