import Foundation
import WebKitThread
import NavWatchSupport

/// navwatch's web process extension (built from `Sources/CNavShim/web-extension`
/// and embedded by the WebProcessExtension plugin), written out once to a
/// directory of its own that WebKit loads it from.
///
/// An installed navwatch (the Debian package's `/usr/bin/navwatch`) finds the
/// same image already written, in `../lib/navwatch/web-extension` beside its
/// executable's directory, and writes nothing. Otherwise (a build tree, or a
/// program of the user's own) the directory is named after the image's
/// content, so that processes of different navwatch versions never share one,
/// and it holds nothing else (WebKit loads every shared object in it). It
/// lives in the user's cache (`$XDG_CACHE_HOME` or `~/.cache`) when that is
/// writable, else in a fresh private temporary directory.
enum WebProcessExtension {
    static let fileName = "navwatch-web-extension.so"

    /// Where a package installs the extension, relative to the directory of the
    /// executable (`/usr/bin` → `/usr/lib/navwatch/web-extension`).
    static let installedDirectory = "../lib/navwatch/web-extension"

    /// The directory, written on first use; the same answer for the life of the process.
    static let directory: Result<String, WebKitUnavailableError> = {
        guard let image = Data(base64Encoded: webProcessExtensionImage) else {
            return .failure(WebKitUnavailableError(reason: "navwatch's web process extension is damaged (rebuild navwatch)"))
        }
        if let installed = installed(image) { return .success(installed) }
        let name = "web-extension-" + String(FNV1a.hash(image), radix: 16)
        var problems: [String] = []
        for candidate in candidateDirectories(named: name) {
            do {
                try install(image, in: candidate)
                return .success(candidate.path)
            } catch {
                problems.append("\(candidate.path): \(error.localizedDescription)")
            }
        }
        return .failure(WebKitUnavailableError(
            reason: "cannot write navwatch's web process extension (\(problems.joined(separator: "; ")))"))
    }()

    /// The installed directory beside the executable, when it holds exactly
    /// `image` (a package of the same build) and nothing else.
    static func installed(_ image: Data) -> String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let directory = URL(filePath: executable).deletingLastPathComponent()
            .appending(path: installedDirectory).standardizedFileURL
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path), files == [fileName],
              (try? Data(contentsOf: directory.appending(path: fileName))) == image else { return nil }
        return directory.path
    }

    /// `name` in navwatch's cache (`$XDG_CACHE_HOME` or `~/.cache`), then a
    /// fresh private temporary directory.
    static func candidateDirectories(named name: String) -> [URL] {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [URL] = []
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            candidates.append(URL(filePath: cache).appending(path: "navwatch/\(name)"))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            candidates.append(URL(filePath: home).appending(path: ".cache/navwatch/\(name)"))
        }
        var template = Array((NSTemporaryDirectory() + "/navwatch-\(name)-XXXXXX").utf8CString)
        if let made = mkdtemp(&template) {
            candidates.append(URL(filePath: String(cString: made)))
        }
        return candidates
    }

    /// Makes `directory` (private to the user) hold exactly `image`; a file
    /// already there with the same bytes is kept.
    private static func install(_ image: Data, in directory: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = directory.appending(path: fileName)
        if (try? Data(contentsOf: target)) == image { return }
        // Written aside, then renamed: a web process never loads half a file,
        // and two navwatch processes writing at once both end with the whole one.
        let partial = directory.appending(path: ".\(fileName).\(getpid())")
        try image.write(to: partial)
        guard rename(partial.path, target.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
