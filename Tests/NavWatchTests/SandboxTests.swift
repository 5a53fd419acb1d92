import Foundation
import LoopbackServer
import NavWatchTestSupport
import NavWatch
import Testing
import WebKitThread

/// A web process of this process, as /proc shows it.
private struct WebProcess {
    let pid: Int32
    /// The commands between this process and the web process, nearest first.
    let ancestors: [String]

    /// Every WebKitWebProcess descended from this process.
    static func all() -> [WebProcess] {
        ProcessTree.descendants(of: getpid())
            .filter { $0.value.name == "WebKitWebProces" }  // comm is cut at 15 characters
            .map { WebProcess(pid: $0.key, ancestors: $0.value.ancestors) }
    }

    /// Whether `path` exists in the file system this process sees.
    func sees(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)/root\(path)")
    }
}

@Suite("The web process sandbox", .serialized)
struct SandboxTests {
    /// A file this test process can read, outside everything the sandbox shares.
    private static func secretFile() throws -> String {
        let directory = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".navwatch-sandbox-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("secret.txt")
        try "not for pages".write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @WebKitActor
    private static func load(_ configuration: WebViewConfiguration) async throws -> WebView {
        let server = try await TestSite.http.value
        let recorder = Recorder(base: server.baseURL)
        let view = try recorder.makeView(configuration)
        try view.load(server.url("/page"))
        await recorder.waitForEnd(of: 1)
        #expect(recorder.lines == ["#1 start /page", "#1 commit 200 text/html", "#1 finish"])
        return view
    }

    @Test("by default the web process runs inside bubblewrap and cannot see a file the crawler can")
    @WebKitActor func sandboxed() async throws {
        let secret = try Self.secretFile()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: secret).deletingLastPathComponent().path) }
        let view = try await Self.load(WebViewConfiguration())
        defer { view.close() }
        // Other tests' web processes come and go: one that is exiting has no
        // root to look into, so only those whose /usr/lib is visible count.
        let confined = WebProcess.all().filter { $0.ancestors.contains("bwrap") && $0.sees("/usr/lib") }
        #expect(!confined.isEmpty, "no running web process under bwrap among \(WebProcess.all().map(\.ancestors))")
        #expect(FileManager.default.fileExists(atPath: secret))
        for process in confined {
            #expect(!process.sees(secret), "web process \(process.pid) can see \(secret)")
        }
    }

    @Test("without the sandbox the web process is this process's child and sees its files")
    @WebKitActor func unsandboxed() async throws {
        let secret = try Self.secretFile()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: secret).deletingLastPathComponent().path) }
        let view = try await Self.load(WebViewConfiguration(sandboxed: false))
        defer { view.close() }
        let direct = WebProcess.all().filter { $0.ancestors.isEmpty && $0.sees("/usr/lib") }
        #expect(!direct.isEmpty, "no web process is a direct child: \(WebProcess.all().map(\.ancestors))")
        for process in direct {
            #expect(process.sees(secret))
        }
    }
}

@Suite("Whether the sandbox can start")
struct SandboxCheckTests {
    @Test("the bubblewrap WebKit runs passes the check here")
    @WebKitActor func available() {
        #expect(WebContextPool.sandboxProblem(bubblewrapPath: WebContextPool.bubblewrapPath) == nil)
    }

    @Test("a missing or failing bubblewrap is one line with the fix, instead of WebKit aborting the process")
    @WebKitActor func unavailable() {
        #expect(WebContextPool.sandboxProblem(bubblewrapPath: "/nonexistent/bwrap")?.description == """
            WebKit is unavailable: the web process sandbox cannot start (/nonexistent/bwrap is missing): \
            install bubblewrap (apt install bubblewrap), or turn the sandbox off \
            (--no-sandbox, WebViewConfiguration.sandboxed = false)
            """)
        #expect(WebContextPool.sandboxProblem(bubblewrapPath: "/bin/false")?.description == """
            WebKit is unavailable: the web process sandbox cannot start (/bin/false cannot create a sandbox: it failed): \
            this system does not let it make namespaces; turn the sandbox off \
            (--no-sandbox, WebViewConfiguration.sandboxed = false)
            """)
    }
}
