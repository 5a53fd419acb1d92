import Foundation

/// A command's output as it is made: standard output, or a file created (or
/// replaced) at the start, written in chunks of 64 KiB, so that a command
/// writing a million reports holds one chunk, not the whole text.
package final class TextOutput {
    private let handle: FileHandle
    private let path: String?
    private var buffer: [UInt8] = []
    private static let chunk = 1 << 16

    /// Standard output when `path` is nil or `-`, else the file at `path`.
    package init(path: String?) throws(OutputError) {
        guard let path, path != "-" else {
            (handle, self.path) = (.standardOutput, nil)
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw OutputError("cannot write \(path)")
        }
        (self.handle, self.path) = (handle, path)
        buffer.reserveCapacity(Self.chunk)
    }

    package func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunk { flush() }
    }

    /// Copies the whole file at `path` into the output, a chunk at a time.
    package func append(contentsOf path: String) throws(OutputError) {
        guard let source = FileHandle(forReadingAtPath: path) else { throw OutputError("cannot read \(path)") }
        defer { try? source.close() }
        flush()
        while let data = try? source.read(upToCount: Self.chunk), !data.isEmpty {
            handle.write(data)
        }
    }

    /// Writes what is buffered and closes the file (standard output stays open).
    package func finish() throws(OutputError) {
        flush()
        guard let path else { return }
        do { try handle.close() } catch { throw OutputError("cannot write \(path)") }
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
