import Foundation

/// What a PNG (its IHDR chunk) or a baseline or progressive JPEG (its
/// start-of-frame segment) says it is, as `png 1280x800` or `jpeg 800x500`;
/// nil when `data` is neither.
public func imageKind(_ data: Data) -> String? {
    let bytes = [UInt8](data)
    let number = { (offset: Int, count: Int) in bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) } }
    if bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
        return "png \(number(16, 4))x\(number(20, 4))"
    }
    guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
    var offset = 2
    // Segments: FF, a marker, a two-byte length that counts itself; SOF0-SOF2 hold the size.
    while offset + 9 < bytes.count, bytes[offset] == 0xFF {
        let marker = bytes[offset + 1]
        if (0xC0...0xC2).contains(marker) { return "jpeg \(number(offset + 7, 2))x\(number(offset + 5, 2))" }
        offset += 2 + number(offset + 2, 2)
    }
    return nil
}

/// What the file at `path` is (`imageKind(_:)`); nil when it cannot be read or is no PNG or JPEG.
public func imageKind(atPath path: String) -> String? {
    FileManager.default.contents(atPath: path).flatMap(imageKind)
}
