/// Reads a span of a zip (its central directory) in pieces of 1 MiB or
/// more, so that a record of any length (at most 46 + 3 × 65,535 bytes)
/// is whole in one.
struct ZipPieceReader {
    let source: ArchiveReadSource
    /// The archive offset of the piece's first byte, and the span's end.
    private(set) var start: Int64
    let end: Int64
    private var piece = LittleEndianBytes(bytes: [])
    /// Bytes of the piece consumed.
    private var used = 0

    init(source: ArchiveReadSource, start: Int64, end: Int64) {
        self.source = source
        self.start = start
        self.end = end
    }

    /// The next `count` bytes, not consumed; nil past the span's end.
    mutating func peek(_ count: Int) -> LittleEndianBytes? {
        if piece.count - used < count {
            start += Int64(used)
            let length = Int(min(end - start, Int64(max(count, 1 << 20))))
            guard length >= count, let next = LittleEndianBytes(reading: source, at: start, count: length) else { return nil }
            piece = next
            used = 0
        }
        return piece.dropFirst(used, keeping: count)
    }

    mutating func advance(_ count: Int) {
        used += count
    }
}
