import CompressNIO
import Foundation
import NIOCore

/// gzip decompression (RFC 1952) with a bound on the output, on CompressNIO's zlib.
package enum Gzip {
    /// Whether `data` starts with the gzip magic bytes 0x1f 0x8b.
    static func isCompressed(_ data: some Collection<UInt8>) -> Bool {
        var bytes = data.makeIterator()
        return bytes.next() == 0x1f && bytes.next() == 0x8b
    }

    /// The decompressed bytes of `compressed` (its first gzip member), at most
    /// `maxBytes` of them. A stream cut short gives what it holds.
    ///
    /// - Returns: the output, and whether it was cut at `maxBytes`.
    /// - Throws: `CompressNIOError.corruptData` when the input is not gzip.
    static func decompress(_ compressed: some Collection<UInt8>, maxBytes: Int) throws -> (data: Data, cut: Bool) {
        var input = ByteBufferAllocator().buffer(bytes: compressed)
        guard input.readableBytes > 0 else { return (Data(), false) }
        let decompressor = CompressionAlgorithm.gzip().decompressor
        try decompressor.startStream()
        defer { try? decompressor.finishStream() }
        var output = Data()
        var window = ByteBufferAllocator().buffer(capacity: 64 << 10)
        while true {
            window.clear()
            let inputBefore = input.readableBytes
            var windowFull = false
            do {
                try decompressor.streamInflate(from: &input, to: &window)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                windowFull = true
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                // The input ended before the end of the stream.
            }
            let room = maxBytes - output.count
            output.append(contentsOf: window.readableBytesView.prefix(room))
            if window.readableBytes > room { return (output, true) }
            // Without a full window the stream ended or the input is used up.
            guard windowFull, input.readableBytes > 0 || window.readableBytes > 0 else { return (output, false) }
            if window.readableBytes == 0 && input.readableBytes == inputBefore { return (output, false) }
        }
    }

    /// `data` gzip-compressed (for the tests' fixtures: the checker only decompresses).
    package static func compress(_ data: some Collection<UInt8>) throws -> Data {
        var input = ByteBufferAllocator().buffer(bytes: data)
        let output = try input.compress(with: .gzip())
        return Data(output.readableBytesView)
    }
}
