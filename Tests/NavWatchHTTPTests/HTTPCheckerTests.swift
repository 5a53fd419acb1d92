import Testing
@testable import NavWatchHTTP

@Suite("HTTPChecker") struct HTTPCheckerTests {
    @Test("placeholder") func placeholder() {}
}
