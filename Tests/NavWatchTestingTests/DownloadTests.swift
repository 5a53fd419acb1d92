import Foundation
import NavWatchTesting
import Testing

/// A download is written only while a test waits for it, into the directory
/// the test gave, and nowhere else.
@Suite("Downloads: written only for waitForDownload, only into its directory")
@WebKitActor
struct DownloadTests {
    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("an attachment is written under its suggested name; a second one with the same name gets (1)")
    func attachment() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let view = try await open("/downloads")
        defer { view.close() }
        let file = try await view.waitForDownload(into: directory) { try await view.locator("#csv").click() }
        #expect(file.suggestedFilename == "todos.csv")
        #expect(file.url.path == "/export.csv")
        #expect(file.path == directory.appendingPathComponent("todos.csv"))
        #expect(try String(contentsOf: file.path, encoding: .utf8) == "title,done\ncheese,false\n")
        let again = try await view.waitForDownload(into: directory) { try await view.locator("#csv").click() }
        #expect(again.path == directory.appendingPathComponent("todos (1).csv"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["todos (1).csv", "todos.csv"])
        #expect(view.url?.path == "/downloads")
    }

    @Test("two downloads of one name into one directory at once: each its own file")
    func sameNameAtOnce() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await open("/downloads"), second = try await open("/downloads")
        defer { first.close(); second.close() }
        // Both answered a second after they were asked: their names are chosen a few milliseconds apart.
        async let one = first.waitForDownload(into: directory) { try await first.locator("#slow").click() }
        async let other = second.waitForDownload(into: directory) { try await second.locator("#slow").click() }
        let paths = try await [one.path.lastPathComponent, other.path.lastPathComponent].sorted()
        #expect(paths == ["slow (1).csv", "slow.csv"])
        for name in paths {
            #expect(try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) == "late")
        }
    }

    @Test("a suggested name that climbs out of the directory is written inside it, under its last part")
    func escape() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let view = try await open("/downloads")
        defer { view.close() }
        let file = try await view.waitForDownload(into: directory) { try await view.locator("#escape").click() }
        #expect(file.suggestedFilename == "escape.txt")
        #expect(file.path == directory.appendingPathComponent("escape.txt"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["escape.txt"])
    }

    @Test("without a wait nothing is written and the page stays; a wait with no download times out")
    func notAwaited() async throws {
        let view = try await open("/downloads")
        defer { view.close() }
        var downloads: [String] = []
        let recorder = DownloadRecorder { downloads.append($0.url.path) }
        view.navigationDelegate = recorder
        try await view.locator("#csv").click()
        let deadline = ContinuousClock.now + .seconds(10)
        while downloads.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(downloads == ["/export.csv"])
        #expect(view.url?.path == "/downloads")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        await #expect(throws: InteractionError.timedOut(waitingFor: "a download", after: .milliseconds(300))) {
            _ = try await view.waitForDownload(into: directory, timeout: .milliseconds(300)) {}
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a wait that gave up writes nothing: its download, answered later, is dropped")
    func givenUp() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let view = try await open("/downloads")
        defer { view.close() }
        var downloads = 0
        let recorder = DownloadRecorder { _ in downloads += 1 }
        view.navigationDelegate = recorder
        await #expect(throws: InteractionError.timedOut(waitingFor: "a download", after: .milliseconds(200))) {
            _ = try await view.waitForDownload(into: directory, timeout: .milliseconds(200)) {
                // The page's own click: it does not wait for the answer, which comes after a second.
                _ = try await view.evaluateJavaScript("document.getElementById('slow').click(); 1")
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while downloads == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(downloads == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    private final class DownloadRecorder: NavigationDelegate {
        let onDownload: (Download) -> Void
        init(_ onDownload: @escaping (Download) -> Void) { self.onDownload = onDownload }
        func webView(_ webView: WebView, didBecomeDownload download: Download) { onDownload(download) }
    }
}
