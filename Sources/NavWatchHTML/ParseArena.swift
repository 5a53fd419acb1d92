import CGumbo
import Glibc

/// The memory of one Gumbo parse: Gumbo allocates and frees tens of
/// thousands of small blocks per page (nodes, attribute vectors, growing
/// string buffers); an arena hands them out from large chunks, frees nothing
/// until the parse's tree is no longer needed, and then frees it all at once.
///
/// Used for documents up to `largestDocument`: what it never frees (the
/// buffers Gumbo outgrew) is at most a few times the document's tree.
/// Owned by one parse on one thread.
final class ParseArena {
    /// The largest document parsed in an arena; larger ones use malloc and free.
    static let largestDocument = 1 << 20
    private static let chunkSize = 64 << 10  // below malloc's mmap threshold: reused, not mapped anew

    private var chunks: [UnsafeMutableRawPointer] = []
    private var next: UnsafeMutableRawPointer?
    private var remaining = 0

    /// `options` with this arena as Gumbo's allocator. The arena must outlive every use of `options`.
    func install(in options: inout GumboOptions) {
        options.userdata = Unmanaged.passUnretained(self).toOpaque()
        options.allocator = { arena, size in
            // Borrowed, not retained: `install`'s caller keeps the arena alive.
            Unmanaged<ParseArena>.fromOpaque(arena!)._withUnsafeGuaranteedRef { $0.allocate(size) }
        }
        options.deallocator = { _, _ in }  // all at once, in deinit
    }

    private func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        let size = (size + 15) & ~15  // malloc's alignment
        if size > remaining {
            if size > Self.chunkSize / 4 {  // a large block gets one of its own
                let block = malloc(size)!
                chunks.append(block)
                return block
            }
            let chunk = malloc(Self.chunkSize)!
            chunks.append(chunk)
            (next, remaining) = (chunk, Self.chunkSize)
        }
        let block = next!
        next = block + size
        remaining -= size
        return block
    }

    deinit {
        for chunk in chunks { free(chunk) }
    }
}
