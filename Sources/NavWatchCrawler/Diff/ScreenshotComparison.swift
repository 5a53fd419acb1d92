import NavWatch

/// How two screenshots of a page differ: the share of pixels that changed,
/// and a difference image (the new picture faded, changed pixels in red).
///
/// A pixel changed when one of its channels (alpha, red, green, blue) moved
/// by more than `channelTolerance` of 255, so that the small shifts of
/// anti-aliasing do not count; where the two pictures differ in size, every
/// pixel outside one of them changed.
package struct ScreenshotComparison: Sendable, Equatable {
    /// How far a channel may move before its pixel counts as changed.
    package static let channelTolerance: UInt32 = 32

    /// Percent of the pixels (of the larger width by the larger height) that changed.
    package var percent: Double
    package var changedPixels: Int

    /// Compares the PNG files `old` and `new`; writes the difference image to
    /// `differenceImage` when given and any pixel changed.
    package init(old: String, new: String, differenceImage: String? = nil) throws(PNGImageError) {
        let before = try PNGImage(contentsOf: old), after = try PNGImage(contentsOf: new)
        let width = max(before.width, after.width), height = max(before.height, after.height)
        let picture = try differenceImage.map { _ throws(PNGImageError) in try PNGImage(width: width, height: height) }
        var changed = 0
        for y in 0..<height {
            for x in 0..<width {
                let inBefore = x < before.width && y < before.height, inAfter = x < after.width && y < after.height
                let pixel = inAfter ? after[x, y] : 0
                let differs = !(inBefore && inAfter) || Self.differs(before[x, y], pixel)
                if differs { changed += 1 }
                picture?[x, y] = differs ? 0xFFE0_1E1E : Self.faded(pixel)
            }
        }
        changedPixels = changed
        percent = width * height == 0 ? 0 : Double(changed) * 100 / Double(width * height)
        if let picture, let differenceImage, changed > 0 { try picture.write(to: differenceImage) }
    }

    private static func differs(_ a: UInt32, _ b: UInt32) -> Bool {
        guard a != b else { return false }
        for shift: UInt32 in [0, 8, 16, 24] {
            let one = (a >> shift) & 0xFF, other = (b >> shift) & 0xFF
            if (one > other ? one - other : other - one) > channelTolerance { return true }
        }
        return false
    }

    /// `pixel` in grey, a quarter as dark, opaque.
    private static func faded(_ pixel: UInt32) -> UInt32 {
        let alpha = (pixel >> 24) & 0xFF
        let red = (pixel >> 16) & 0xFF, green = (pixel >> 8) & 0xFF, blue = pixel & 0xFF
        // Premultiplied: a transparent pixel is white on the page.
        let grey = (red * 30 + green * 59 + blue * 11) / 100 + (255 - alpha)
        let light = 255 - (255 - min(grey, 255)) / 4
        return 0xFF00_0000 | light << 16 | light << 8 | light
    }
}
