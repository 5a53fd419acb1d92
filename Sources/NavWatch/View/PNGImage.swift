import CNavShim
import Foundation

/// A PNG file's pixels in memory, for comparing screenshots: 32-bit
/// premultiplied ARGB in native byte order (`0xAARRGGBB` as a `UInt32`).
///
/// Plain memory: no WebKit, any thread, but one thread at a time.
package final class PNGImage {
    private let image: OpaquePointer

    package let width: Int
    package let height: Int

    /// Reads the PNG file at `path`; throws a one-line message when it cannot.
    package init(contentsOf path: String) throws(PNGImageError) {
        var error: UnsafeMutablePointer<CChar>?
        guard let image = nw_image_read_png(path, &error) else {
            defer { free(error) }
            throw PNGImageError(message: "\(path): " + (error.map { String(cString: $0) } ?? "cannot be read"))
        }
        self.image = image
        width = Int(nw_image_width(image))
        height = Int(nw_image_height(image))
    }

    /// A transparent image of `width` x `height` pixels.
    package init(width: Int, height: Int) throws(PNGImageError) {
        guard let image = nw_image_new(Int32(width), Int32(height)) else {
            throw PNGImageError(message: "cannot make an image of \(width)x\(height) pixels")
        }
        self.image = image
        self.width = width
        self.height = height
    }

    deinit { nw_image_free(image) }

    /// The pixel at column `x`, row `y` (both within the image).
    package subscript(x: Int, y: Int) -> UInt32 {
        get { row(y)[x] }
        set { row(y)[x] = newValue }
    }

    private func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer(nw_image_data(image) + y * Int(nw_image_stride(image))).assumingMemoryBound(to: UInt32.self)
    }

    /// Writes the image to `path` as PNG.
    package func write(to path: String) throws(PNGImageError) {
        if let error = nw_image_write_png(image, path) {
            defer { free(error) }
            throw PNGImageError(message: "\(path): " + String(cString: error))
        }
    }
}

/// Why a PNG image could not be read, made or written: one line.
package struct PNGImageError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
