import CNavShim
import Foundation

/// A file a page downloaded for `WebView.waitForDownload(into:timeout:_:)`,
/// as Playwright's `Download`: written in full.
public struct DownloadedFile: Sendable, Hashable {
    /// The URL it came from.
    public let url: URL
    /// The file name the server or the link suggested (`Content-Disposition`,
    /// `<a download>`, else the URL's last part), cut to its last part and
    /// without control characters: the name it was written under, unless taken.
    public let suggestedFilename: String
    /// Where it was written: a file directly in the directory given, named
    /// after `suggestedFilename` (with ` (1)`, ` (2)`, ... before its
    /// extension when that name is taken).
    public let path: URL
}

extension WebView {
    /// Runs `action`, then waits until the download it starts (a response the
    /// delegate's response policy turns into a download: an attachment, a
    /// type WebKit cannot show, an `<a download>` link) is written into
    /// `directory`, and returns it. Only while such a wait runs is anything
    /// written: otherwise a download is reported (`NavigationEvent.download`)
    /// and its body dropped, as in a crawl. The file never lands outside
    /// `directory`, whatever name the server suggests.
    ///
    /// ```swift
    /// let file = try await view.waitForDownload(into: folder) { try await view.getByText("Export CSV").click() }
    /// #expect(file.suggestedFilename == "todos.csv")
    /// ```
    ///
    /// - Parameters:
    ///   - directory: an existing directory the file is written to.
    ///   - timeout: how long to wait once `action` returned, for the download
    ///     to start and to be written; nil is `defaultTimeout`.
    ///   - action: what makes the page download; a download started while it runs counts.
    /// - Throws: what `action` throws; `InteractionError.timedOut` when no
    ///   download was written in time; `InteractionError.downloadFailed` when
    ///   it failed; `WebViewError.closed` after `close()`.
    public func waitForDownload(into directory: URL, timeout: Duration? = nil,
                                _ action: () async throws -> Void) async throws -> DownloadedFile {
        guard !isClosed else { throw WebViewError.closed }
        let wait = DownloadWait(directory: directory.standardizedFileURL)
        let number = downloadWaitsMade
        downloadWaitsMade += 1
        downloadWaits[number] = wait
        defer {
            downloadWaits[number] = nil
            // Given up (timed out, or the action threw): its download is not written.
            if let id = wait.id, !wait.ended.isFulfilled, let shim { nw_view_cancel_download(shim, id) }
        }
        try await action()
        let limit = timeout ?? defaultTimeout
        guard let result = await wait.ended.value(within: limit) else {
            if isClosed { throw WebViewError.closed }
            throw InteractionError.timedOut(waitingFor: "a download", after: limit)
        }
        return try result.get()
    }

    /// Whether a `waitForDownload` waits for a download not yet started.
    var isAwaitingDownload: Bool { downloadWaits.values.contains { $0.id == nil } }

    /// Where download `id` of `url` is written: in the directory of the
    /// oldest wait without a download yet; nil (cancel it) when none waits.
    func downloadDestination(id: UInt64, url: String, suggestedFilename: String) -> String? {
        guard let wait = downloadWaits.sorted(by: { $0.key < $1.key }).first(where: { $0.value.id == nil })?.value else {
            return nil
        }
        let name = DownloadWait.fileName(suggested: suggestedFilename, url: url)
        wait.id = id
        wait.suggestedFilename = name
        let path = DownloadWait.freePath(for: name, in: wait.directory, except: Set(DownloadWait.writing.values)).path
        // WebKit creates the file only once data comes: until the download
        // ends, its path is taken for every other download of the process.
        DownloadWait.writing[id] = path
        return path
    }

    /// Download `id` of `url` ended: written to `path`, or failed with `error`.
    func downloadEnded(id: UInt64, url: String, path: String?, error: String?) {
        DownloadWait.writing[id] = nil
        guard let wait = downloadWaits.values.first(where: { $0.id == id }) else { return }
        if let path, error == nil, let source = URL(string: url) {
            wait.ended.fulfil(.success(DownloadedFile(url: source, suggestedFilename: wait.suggestedFilename,
                                                      path: URL(fileURLWithPath: path))))
        } else {
            wait.ended.fulfil(.failure(InteractionError.downloadFailed(url: url, message: error ?? "it was not written")))
        }
    }
}

/// One `waitForDownload` call's wait: its download, once started, and how it ended.
@WebKitActor
final class DownloadWait {
    let directory: URL
    /// The shim's id of its download, once one started.
    var id: UInt64?
    var suggestedFilename = ""
    /// The paths of the downloads being written, in every view, by the shim's id.
    static var writing: [UInt64: String] = [:]
    /// How it ended: written, or failed.
    let ended = ActionWait<Result<DownloadedFile, InteractionError>>()

    init(directory: URL) {
        self.directory = directory
    }

    /// A file name of `suggested` alone (no directory part, no `..`, no
    /// control character); the URL's last part, or `download`, when nothing is left.
    nonisolated static func fileName(suggested: String, url: String) -> String {
        func clean(_ text: String) -> String {
            let last = text.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
            let printable = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            let trimmed = printable.trimmingCharacters(in: .whitespaces)
            return trimmed == "." || trimmed == ".." ? "" : trimmed
        }
        let name = clean(suggested)
        if !name.isEmpty { return name }
        let fromURL = clean(URL(string: url)?.lastPathComponent ?? "")
        return fromURL.isEmpty ? "download" : fromURL
    }

    /// `name` in `directory`, or with ` (1)`, ` (2)`, ... before its
    /// extension: the first that is no file and not in `taken`.
    nonisolated static func freePath(for name: String, in directory: URL, except taken: Set<String> = []) -> URL {
        func isFree(_ url: URL) -> Bool { !taken.contains(url.path) && !FileManager.default.fileExists(atPath: url.path) }
        let first = directory.appendingPathComponent(name)
        guard !isFree(first) else { return first }
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var number = 1
        while true {
            let candidate = directory.appendingPathComponent("\(stem) (\(number))" + (ext.isEmpty ? "" : ".\(ext)"))
            if isFree(candidate) { return candidate }
            number += 1
        }
    }
}
