import Foundation
import LoopbackServer
import NavWatch
import NavWatchCrawler
import NavWatchTestSupport
import Testing

private let site = Task { try await LoopbackServer.start(route: FixtureSite.route) }

@Suite("Screenshots")
struct ScreenshotTests {
    @Test("navwatch URL --screenshot saves the viewport as a PNG; several URLs are numbered")
    func watchScreenshots() async throws {
        let server = try await site.value
        let one = temporaryPath("page.png")
        defer { try? FileManager.default.removeItem(atPath: one) }
        let single = try await NavwatchProcess.run([server.url("/rich").absoluteString, "--screenshot", one])
        #expect(single.status == 0)
        #expect(imageKind(atPath: one) == "png 1280x800")

        let base = temporaryPath("shot.png")
        let numbered = (1...2).map { base.replacingOccurrences(of: ".png", with: "-\($0).png") }
        defer { for path in numbered { try? FileManager.default.removeItem(atPath: path) } }
        // The second URL fails at once (nothing listens on its port), on a busy machine too: a timeout short
        // enough to end a page that hangs also ended the first page, which then had no screenshot either.
        let refused = try RefusingPort()
        let several = try await NavwatchProcess.run([server.url("/page").absoluteString, refused.url,
                                                     "--screenshot", base])
        #expect(several.status == 1)
        #expect(several.stderr == "")
        #expect(several.stdout.first { $0.contains(" finished ") }?.contains("/page") == true)
        #expect(imageKind(atPath: numbered[0]) == "png 1280x800")
        #expect(!FileManager.default.fileExists(atPath: numbered[1]))  // it never finished
    }

    @Test("navwatch URL --trace: a step per load, each with its screenshot and why it failed, as Chromium shows it; --device sizes them, and the HAR names it")
    func watchTrace() async throws {
        let server = try await site.value
        let trace = temporaryPath("trace.html"), har = temporaryPath("trace.har")
        defer { for path in [trace, har] { try? FileManager.default.removeItem(atPath: path) } }
        let refused = try RefusingPort()
        let failing = refused.url
        let result = try await NavwatchProcess.run([server.url("/rich").absoluteString, failing, "--trace", trace,
                                                    "--device", "Pixel 7", "--har", har])
        #expect(result.status == 1)
        #expect(result.stderr == "")
        let html = try String(contentsOfFile: trace, encoding: .utf8)
        let steps = html.components(separatedBy: "<li><span class=\"step\">").dropFirst().map { $0.prefix { $0 != "<" } }
        #expect(steps.map(String.init) == ["goto \(server.url("/rich").absoluteString)", "goto \(failing)"])
        #expect(html.contains("<span class=\"failed\">failed</span> "))
        #expect(html.contains("<pre class=\"error\">connection-refused: "))
        // A JPEG screenshot after each load, the device's viewport (412x839).
        let images = html.components(separatedBy: "src=\"data:image/jpeg;base64,").dropFirst()
            .map { Data(base64Encoded: String($0.prefix { $0 != "\"" })).flatMap(imageKind) }
        // (412x839 at the device's scale factor, 3, scaled to the trace's 800 pixels wide.)
        #expect(images == ["jpeg 800x1629", "jpeg 800x1629"])
        // The file opens in a browser as it is, from the disk: Chromium's document of it (Scripts/test installs Chromium).
        let chromium = try await NavwatchProcess(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                                                  URL(fileURLWithPath: trace).absoluteString],
                                                 executable: "/usr/bin/chromium").finish(within: .seconds(60))
        #expect(chromium.status == 0)
        let dom = chromium.stdout.joined(separator: "\n")
        #expect(dom.components(separatedBy: "<li><span class=\"step\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
                    == ["goto \(server.url("/rich").absoluteString)", "goto \(failing)"])
        #expect(dom.components(separatedBy: "<img alt=\"the page after this step\" src=\"data:image/jpeg;base64,").count == 3)
        // Each HAR page says what its view emulated.
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        let pages = try #require((log["log"] as? [String: Any])?["pages"] as? [[String: Any]])
        let pixel = try #require(Device.named("Pixel 7"))
        let emulations = pages.map { $0["_emulation"] as? [String: Any] }
        #expect(emulations.map { $0?.filter { $0.key != "device_scale_factor" } as? [String: String] }
                    == Array(repeating: ["viewport": "412x839", "device": "Pixel 7", "user_agent": pixel.userAgent], count: 2))
        #expect(emulations.map { $0?["device_scale_factor"] as? Int } == [3, 3])
    }

    @Test("--viewport sizes the page and its screenshot; crawl --timezone, --locale, --color-scheme and --reduced-motion set what its pages read, and each report says so")
    func viewportAndTimeZone() async throws {
        let server = try await site.value
        let shot = temporaryPath("phone.png")
        defer { try? FileManager.default.removeItem(atPath: shot) }
        let watch = try await NavwatchProcess.run([server.url("/rich").absoluteString, "--viewport", "390x844", "--screenshot", shot])
        #expect(watch.status == 0)
        #expect(imageKind(atPath: shot) == "png 390x844")

        let db = temporaryPath("clock.db"), script = temporaryPath("clock.js")
        defer { removeSQLiteDatabase(atPath: db); try? FileManager.default.removeItem(atPath: script) }
        try """
            return [Intl.DateTimeFormat().resolvedOptions().timeZone, innerWidth, navigator.language,
                    String(matchMedia('(prefers-color-scheme: dark)').matches), String(matchMedia('(prefers-reduced-motion: reduce)').matches)]
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", "--timezone", "Asia/Tokyo",
                                                   "--viewport", "800x600", "--locale", "fr-FR", "--color-scheme", "dark",
                                                   "--reduced-motion", "reduce", "--extract", script, server.url("/rich").absoluteString])
        #expect(crawl.status == 0)
        let reports = try crawl.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let report = try #require(reports.first { $0["url"] as? String == server.url("/rich").absoluteString })
        #expect(report["data"] as? [AnyHashable] == ["Asia/Tokyo", 800, "fr-FR", "true", "true"])
        #expect(report["emulation"] as? [String: String] == ["viewport": "800x600", "time_zone": "Asia/Tokyo", "locale": "fr-FR",
                                                            "color_scheme": "dark", "reduced_motion": "reduce"])
    }

    @Test("navwatch crawl --screenshots names each finished page's PNG in its report")
    func crawlScreenshots() async throws {
        let server = try await site.value
        let db = temporaryPath("crawl.db"), directory = temporaryPath("shots")
        defer { for path in [db, db + "-wal", db + "-shm", directory] { try? FileManager.default.removeItem(atPath: path) } }
        let crawl = try await NavwatchProcess.run(["crawl", "--db", db, "--max-depth", "0", "--screenshots", directory,
                                                   server.url("/rich").absoluteString, server.url("/status/404").absoluteString])
        #expect(crawl.status == 0)
        // The pages' reports: those of the resources they embed have no screenshot.
        let reports = try crawl.stdout.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            .filter { $0["resource"] == nil }
        let names = reports.compactMap { $0["screenshot"] as? String }.sorted()
        #expect(names.count == 2)
        #expect(names == reports.compactMap { ($0["url"] as? String).map(PageLoadReport.screenshotName) }.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == names)
        for name in names { #expect(imageKind(atPath: directory + "/" + name) == "png 1280x800") }
    }

    @Test("a screenshot directory that cannot be made is one line and exit status 2")
    func badDirectory() async throws {
        let run = try await NavwatchProcess.run(["crawl", "--db", temporaryPath("x.db"), "--screenshots", "/proc/navwatch",
                                                 "http://127.0.0.1:1/"])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("navwatch: cannot create the screenshot directory /proc/navwatch: "))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}
