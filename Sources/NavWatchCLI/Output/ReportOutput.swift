import Foundation
import NavWatchCrawler

/// Where reports go: standard output, or a file opened for appending.
final class ReportOutput: Sendable {
    private let handle: FileHandle

    init(path: String?) throws {
        guard let path, path != "-" else {
            handle = .standardOutput
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission)
            }
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
    }

    func write(_ report: PageLoadReport) {
        handle.write(Data((report.jsonLine + "\n").utf8))
    }
}
