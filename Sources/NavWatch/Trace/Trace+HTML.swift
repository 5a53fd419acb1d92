import Foundation
import NavWatchSupport

extension Trace {
    /// The trace as one HTML page that needs nothing else to open (its
    /// screenshots inline): its steps in order, each with its time, how it
    /// ended and its screenshot, then the console and errors, then the requests.
    public func html() -> String {
        var page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Trace: \(HTML.escape(title))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
            ol.steps { padding-left: 1.5em; } ol.steps li { margin: 0 0 1.5em; }
            .step { font-family: ui-monospace, monospace; } .ok { color: #1a7f37; } .failed { color: #cf222e; }
            .time { color: #666; } pre.error { color: #cf222e; white-space: pre-wrap; margin: .3em 0; }
            img { display: block; max-width: 640px; border: 1px solid #ccc; margin-top: .4em; }
            table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: .2em .6em; text-align: left; vertical-align: top; }
            td { white-space: nowrap; } td.text { white-space: pre-wrap; }
            td.url { white-space: normal; font-family: ui-monospace, monospace; word-break: break-all; }
            </style></head><body>
            <h1>Trace: \(HTML.escape(title))</h1>
            <p class="time">Started \(HTML.escape(ISO8601DateFormatter().string(from: startedAt))); \
            \(steps.count) steps, \(failedSteps) failed; \(messages.count) console messages and errors; \(requests.count) requests.</p>
            <h2>Steps</h2>
            <ol class="steps">

            """
        for step in steps {
            let status = step.error == nil ? "<span class=\"ok\">ok</span>" : "<span class=\"failed\">failed</span>"
            page += "<li><span class=\"step\">\(HTML.escape(step.title))</span> \(status) "
            page += "<span class=\"time\">at \(step.startMilliseconds.millisecondsText), \(step.durationMilliseconds.millisecondsText)</span>"
            if let error = step.error { page += "<pre class=\"error\">\(HTML.escape(error))</pre>" }
            if let screenshot = step.screenshot {
                page += "<img alt=\"the page after this step\" src=\"data:image/jpeg;base64,\(screenshot.base64EncodedString())\">"
            }
            page += "</li>\n"
        }
        page += "</ol>\n<h2>Console and errors</h2>\n"
        page += messages.isEmpty ? "<p>None.</p>\n" : table(["at", "level", "text", "from"], messages.map {
            [$0.milliseconds.millisecondsText, $0.level, $0.text, $0.location ?? ""]
        })
        page += "<h2>Requests</h2>\n"
        page += requests.isEmpty ? "<p>None.</p>\n" : table(["at", "method", "URL", "status", "type", "took"], requests.map {
            [$0.milliseconds.millisecondsText, $0.method, $0.url + ($0.routed == true ? " (routed)" : ""),
             $0.status.map(String.init) ?? ($0.failure ?? "not ended"),
             $0.mimeType ?? "", $0.durationMilliseconds?.millisecondsText ?? ""]
        })
        return page + "</body></html>\n"
    }

    /// How many steps failed.
    public var failedSteps: Int { steps.filter { $0.error != nil }.count }

    private func table(_ headings: [String], _ rows: [[String]]) -> String {
        var html = "<table><tr>" + headings.map { "<th>\(HTML.escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            html += "<tr>" + row.enumerated().map { index, cell in
                let kind = ["URL": " class=\"url\"", "text": " class=\"text\""][headings[index]] ?? ""
                return "<td\(kind)>" + HTML.escape(cell) + "</td>"
            }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }
}
