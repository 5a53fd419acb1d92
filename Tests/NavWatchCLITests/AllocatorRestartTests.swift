@testable import NavWatchCLI
import Testing

@Suite("Which commands navwatch starts again with the system's allocator")
struct AllocatorRestartTests {
    @Test("watch (the default), demo and crawl may start WebKit; the reading commands, help and the version do not")
    func commands() {
        for arguments in [["https://example.org"], ["watch", "example.org"], ["--json", "example.org"], ["demo"],
                          ["crawl", "example.org"]] {
            #expect(NavwatchCommand.mayStartWebKit(arguments), "\(arguments)")
        }
        for arguments in [[], ["--version"], ["--help"], ["-h"], ["help", "crawl"], ["links", "--db", "a.db"],
                          ["export", "--db", "a.db"], ["report", "--db", "a.db"], ["status", "--db", "a.db"],
                          ["budgets", "--db", "a.db"], ["diff", "a.db", "b.db"]] {
            #expect(!NavwatchCommand.mayStartWebKit(arguments), "\(arguments)")
        }
    }
}
