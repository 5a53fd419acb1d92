import Foundation
import NavWatch
@testable import NavWatchCLI
import NavWatchReports
import Testing

@Suite("URLArgument and the JSON line format")
struct URLArgumentTests {
    @Test("a URL without a scheme gets https://", arguments: [
        ("example.org", "https://example.org"),
        ("example.org/a?b=c", "https://example.org/a?b=c"),
        ("localhost:8080/x", "https://localhost:8080/x"),
        ("http://127.0.0.1:9/", "http://127.0.0.1:9/"),
        ("about:blank", "about:blank"),
        ("  example.org  ", "https://example.org"),
    ])
    func schemes(input: String, expected: String) throws {
        #expect(try URLArgument.parse(input).absoluteString == expected)
    }

    @Test("input that is not a loadable URL is refused with one sentence", arguments: [
        ("", "an empty URL was given"),
        ("not a url", "\"not a url\" is not a URL"),
        ("mailto:someone@example.org", "cannot load \"mailto:someone@example.org\": the mailto: scheme is not supported (use http or https)"),
        ("javascript:alert(1)", "cannot load \"javascript:alert(1)\": the javascript: scheme is not supported (use http or https)"),
        ("https://", "\"https://\" is not a URL: it has no host"),
    ])
    func refused(input: String, message: String) {
        #expect(throws: InputError(message)) { try URLArgument.parse(input) }
    }

    @Test("an event's JSON line has the schema's keys, sorted, t_ms to a tenth, strings escaped, null where a message has no place")
    func jsonLine() {
        let error = NavigationError(kind: .connectionRefused, domain: "g-io-error-quark", code: 39,
                                    message: "Could not connect: \"refused\"\n", failingURL: nil)
        let event = WatchEvent(kind: .failed, nav: 2, url: "http://h/", milliseconds: 12.345, provisional: true, error: error)
        #expect(event.jsonLine == #"{"error":{"code":39,"domain":"g-io-error-quark","kind":"connection-refused","message":"Could not connect: \"refused\"\n"},"event":"failed","nav":2,"provisional":true,"t_ms":12.3,"url":"http://h/"}"#)
        let finished = WatchEvent(kind: .finished, nav: 1, url: "http://h/", milliseconds: 40, status: 200, mime: "text/html",
                                  title: "T")
        #expect(finished.jsonLine == #"{"event":"finished","mime":"text/html","nav":1,"status":200,"t_ms":40,"title":"T","url":"http://h/"}"#)
        let console = WatchEvent(kind: .console, nav: 1, url: "http://h/app.js", milliseconds: 5, level: "warn",
                                 message: "careful", line: 12)
        #expect(console.jsonLine == #"{"event":"console","level":"warn","line":12,"message":"careful","nav":1,"t_ms":5,"url":"http://h/app.js"}"#)
        let unplaced = WatchEvent(kind: .pageError, nav: 1, url: "", milliseconds: 6, message: "42")
        let dialog = WatchEvent(kind: .dialog, nav: 1, url: "http://h/", milliseconds: 7, message: "Name?",
                                dialog: .init(type: "prompt", message: "Name?", answer: "accepted", text: "Ada"))
        #expect(dialog.jsonLine == #"{"answer":"accepted","event":"dialog","message":"Name?","nav":1,"t_ms":7,"text":"Ada","type":"prompt","url":"http://h/"}"#)
        #expect(unplaced.jsonLine == #"{"column":null,"event":"page-error","line":null,"message":"42","nav":1,"t_ms":6,"url":null}"#)
    }
}
