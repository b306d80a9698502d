/// Where a zip's central directory lies and how many records it holds:
/// the end of central directory record (APPNOTE 4.3.16), with the zip64
/// end record (4.3.14) and its locator (4.3.15) before it when a count or
/// a position does not fit. Encoded by the writer, found and decoded by
/// the readers that look beside libarchive.
struct ZipDirectoryEnd {
    static let signature: UInt32 = 0x0605_4B50
    static let zip64Signature: UInt32 = 0x0606_4B50
    static let locatorSignature: UInt32 = 0x0706_4B50
    /// The end record's length without its comment.
    static let fixedLength = 22

    /// How many records the central directory holds.
    var count: UInt64
    /// The central directory's size and offset.
    var size: UInt64
    var offset: UInt64

    /// The records, with a zip64 end record and its locator first when a
    /// count or a position does not fit the classic record (is at or past
    /// `thresholds`), where it then reads 0xFFFF or 0xFFFFFFFF.
    func encoded(thresholds: Zip64Thresholds) -> [UInt8] {
        var bytes = ZipBytes(capacity: 98)
        if count >= thresholds.entries || offset >= thresholds.bytes || size >= thresholds.bytes {
            // The record's size after this field, made by and needed, disk numbers.
            bytes.u32(Self.zip64Signature)
            bytes.u64(44)
            bytes.u16(3 << 8 | 45, 45)
            bytes.u32(0, 0)
            bytes.u64(count, count, size, offset)
            // The locator: the zip64 end record's disk and offset, the disk count.
            bytes.u32(Self.locatorSignature, 0)
            bytes.u64(offset + size)
            bytes.u32(1)
        }
        let count16 = count >= thresholds.entries ? UInt16.max : UInt16(count)
        bytes.u32(Self.signature)
        bytes.u16(0, 0, count16, count16)
        bytes.u32(size >= thresholds.bytes ? .max : UInt32(size), offset >= thresholds.bytes ? .max : UInt32(offset))
        bytes.u16(0)
        return bytes.bytes
    }

    /// The end of the zip in `source`, from the last end record in its last
    /// 22 + 65,535 bytes (a comment may follow it) and the zip64 end record
    /// that its locator points to, and where the directory ends: where the
    /// zip64 end record begins when there is one, else the end record; nil
    /// when there is none, it spans disks, or a zip64 value is out of range.
    ///
    /// With a locator before the end record, the zip64 end record's values
    /// win, as Info-ZIP's unzip, libzip, Python's zipfile and libarchive
    /// read them, whether or not the end record is saturated (0xFFFF,
    /// 0xFFFFFFFF): Info-ZIP's zip writes both records, with real values in
    /// each, whenever a member needs zip64 (every `cmd | zip out.zip -`). A
    /// locator that leads to no zip64 end record is passed over when the
    /// end record is not saturated.
    /// When bytes came before the zip (a self-extracting stub) and its
    /// offsets were not corrected for them, the locator points short of the
    /// zip64 end record: it is then taken from just before the locator, as
    /// Info-ZIP's unzip and Python's zipfile take it, when it has no
    /// extensible data (as every writer makes it).
    static func locate(in source: ArchiveReadSource) -> (end: ZipDirectoryEnd, at: Int64)? {
        guard let total = source.size, total >= Int64(fixedLength) else { return nil }
        let tailLength = Int(min(total, Int64(fixedLength + 0xFFFF)))
        let tailStart = total - Int64(tailLength)
        guard let tail = LittleEndianBytes(reading: source, at: tailStart, count: tailLength) else { return nil }
        var at = tailLength - fixedLength
        while at >= 0, tail.u32(at) != signature { at -= 1 }
        guard at >= 0, tail.u16(at + 4) == 0, tail.u16(at + 6) == 0, tail.u16(at + 8) == tail.u16(at + 10) else { return nil }
        let (count, size, offset) = (tail.u16(at + 10), tail.u32(at + 12), tail.u32(at + 16))
        let classic = count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF
            ? nil : (ZipDirectoryEnd(count: UInt64(count), size: UInt64(size), offset: UInt64(offset)), tailStart + Int64(at))
        // Zip64: a locator just before the end record gives the zip64 end record's offset.
        guard at >= 20, tail.u32(at - 20) == locatorSignature else { return classic }
        let recorded = Int64(clamping: tail.u64(at - 12))
        let beforeLocator = tailStart + Int64(at - 20 - zip64FixedLength)
        guard let end64At = [recorded, beforeLocator].first(where: { startsZip64End(source, at: $0) }),
              let end64 = LittleEndianBytes(reading: source, at: end64At, count: zip64FixedLength),
              end64.u64(32) <= UInt64(Int.max), end64.u64(40) <= UInt64(Int64.max), end64.u64(48) <= UInt64(Int64.max)
        else { return classic }
        return (ZipDirectoryEnd(count: end64.u64(32), size: end64.u64(40), offset: end64.u64(48)), end64At)
    }

    /// The zip64 end record's length without extensible data.
    private static let zip64FixedLength = 56

    /// Whether a zip64 end record begins at `offset`.
    private static func startsZip64End(_ source: ArchiveReadSource, at offset: Int64) -> Bool {
        guard offset >= 0, let bytes = LittleEndianBytes(reading: source, at: offset, count: 4) else { return false }
        return bytes.u32(0) == zip64Signature
    }
}
