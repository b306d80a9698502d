/// Bytes read as little-endian integers, from `base` on, sharing the
/// array's storage: how every zip record is decoded. Every offset is
/// checked by the caller against `count` first.
struct LittleEndianBytes {
    private let bytes: [UInt8]
    private let base: Int
    let count: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        base = 0
        count = bytes.count
    }

    private init(bytes: [UInt8], base: Int, count: Int) {
        self.bytes = bytes
        self.base = base
        self.count = count
    }

    /// `count` bytes at `offset` from the start of `source`; nil when they
    /// cannot all be read.
    init?(reading source: ArchiveReadSource, at offset: Int64, count: Int) {
        var bytes = [UInt8](repeating: 0, count: count)
        guard bytes.withUnsafeMutableBytes({ source.copyBytes(at: offset, into: $0) }) else { return nil }
        self.init(bytes: bytes)
    }

    /// The `count` bytes after the first `start`.
    func dropFirst(_ start: Int, keeping count: Int) -> LittleEndianBytes {
        precondition(start + count <= self.count)
        return LittleEndianBytes(bytes: bytes, base: base + start, count: count)
    }

    /// The `count` bytes after the first `start`.
    func bytes(_ start: Int, count: Int) -> ArraySlice<UInt8> {
        precondition(start + count <= self.count)
        return bytes[(base + start)..<(base + start + count)]
    }

    func u16(_ at: Int) -> Int {
        Int(bytes[base + at]) | Int(bytes[base + at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32 {
        UInt32(u16(at)) | UInt32(u16(at + 2)) << 16
    }

    func u64(_ at: Int) -> UInt64 {
        UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
    }
}
