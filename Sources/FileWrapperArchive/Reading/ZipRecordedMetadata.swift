import FileWrapperKit

/// What a zip member's own records say of its permission bits and its
/// modification time, as docs/tree-digest.md ("What archives hold")
/// specifies them, rather than what libarchive 3.6.2 makes of them: it
/// gives a member made on FAT or NTFS invented bits (0664 or 0775, 0444
/// when read-only), reads an MS-DOS date and time in the reader's time
/// zone (`TZ`), and ignores the NTFS time field.
struct ZipRecordedMetadata {
    /// The central record's "version made by" host (its high byte) that
    /// records Unix mode bits in the high 16 bits of the external attributes.
    static let unixHost = 3

    /// Permission bits (`0o7777`); nil unless the member was made on Unix
    /// (host 3) and its external attributes hold a Unix mode (high 16 bits
    /// not all zero).
    let permissions: UInt16?
    /// The modification time from the last time field of the local
    /// header's extra field, or, when it has none, of the central
    /// record's; nil when neither has one: an MS-DOS date and time is a
    /// wall clock in an unknown time zone, not a moment.
    let modified: FileTimestamp?

    init(madeBy: Int, externalAttributes: UInt32, localFields: [(id: Int, data: ArraySlice<UInt8>)],
         centralFields: [(id: Int, data: ArraySlice<UInt8>)]) {
        let mode = externalAttributes >> 16
        permissions = madeBy >> 8 == Self.unixHost && mode != 0 ? UInt16(mode & 0o7777) : nil
        modified = Self.lastTime(in: localFields) ?? Self.lastTime(in: centralFields)
    }

    /// The time of the last field among `fields` that records one.
    static func lastTime(in fields: [(id: Int, data: ArraySlice<UInt8>)]) -> FileTimestamp? {
        fields.reversed().lazy.compactMap { time(id: $0.id, data: $0.data) }.first
    }

    /// The modification time a field records, if it is one that does:
    /// - 0x5455, Info-ZIP extended timestamp ("UT"): flags, then the
    ///   modification time when bit 0 is set, 4 bytes;
    /// - 0x5855, Info-ZIP Unix, old ("UX"): access time, modification time, 4 bytes each;
    /// - 0x000d, PKWARE Unix: access time, modification time, 4 bytes each;
    /// - 0x000a, NTFS: 4 reserved bytes, then tagged attributes; tag 1,
    ///   24 bytes long, begins with the modification time in 100 ns units
    ///   since 1601-01-01 00:00:00 UTC, 8 bytes.
    ///
    /// The 4-byte times are unsigned seconds since 1970 (to 2106), as
    /// libarchive 3.6.2 reads them and our writer writes them. All little-endian.
    static func time(id: Int, data: ArraySlice<UInt8>) -> FileTimestamp? {
        func unsigned(_ at: Int, _ count: Int) -> UInt64 {
            data.dropFirst(at).prefix(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch id {
        case 0x5455:
            guard data.count >= 5, data[data.startIndex] & 1 != 0 else { return nil }
            return FileTimestamp(seconds: Int64(unsigned(1, 4)), nanoseconds: 0)
        case 0x5855, 0x000d:
            guard data.count >= 8 else { return nil }
            return FileTimestamp(seconds: Int64(unsigned(4, 4)), nanoseconds: 0)
        case 0x000a:
            var at = 4
            while at + 4 <= data.count {
                let (tag, size) = (unsigned(at, 2), Int(unsigned(at + 2, 2)))
                guard at + 4 + size <= data.count else { return nil }
                if tag == 1, size == 24 {
                    let ticks = unsigned(at + 4, 8)
                    let seconds = Int64(ticks / 10_000_000) - 11_644_473_600
                    return FileTimestamp(seconds: seconds, nanoseconds: Int32(ticks % 10_000_000) * 100)
                }
                at += 4 + size
            }
            return nil
        default:
            return nil
        }
    }
}
