import FileWrapperKit

/// A zip header's extra field (APPNOTE 4.5): ID and data of each field in
/// order, and the fields our writer writes and our readers read, encoded
/// and decoded here.
struct ZipExtraFields {
    /// Zip64 extended information: the 64-bit values of the fields at 0xFFFFFFFF.
    static let zip64 = 0x0001
    /// NTFS: times in 100 ns units since 1601.
    static let ntfs = 0x000a
    /// PKWARE Unix: access and modification times, owner.
    static let pkwareUnix = 0x000d
    /// Info-ZIP extended timestamp ("UT").
    static let extendedTimestamp = 0x5455
    /// Info-ZIP Unix, old ("UX").
    static let infoZipUnix = 0x5855
    /// Info-ZIP Unicode Path.
    static let unicodePath = 0x7075
    /// Info-ZIP Unix owner ("ux").
    static let unixOwner = 0x7875
    /// Padding, as Android's `zipalign` writes it: the alignment in 2 bytes, then zeros.
    static let alignment = 0xD935

    /// The fields, in order; a field that runs past the end ends them.
    let fields: [(id: Int, data: ArraySlice<UInt8>)]
    /// Whether no field runs past the end (1 to 3 bytes left over do not count).
    let isWellFormed: Bool

    init(_ bytes: ArraySlice<UInt8>) {
        var fields: [(id: Int, data: ArraySlice<UInt8>)] = []
        var at = bytes.startIndex
        var wellFormed = true
        while at + 4 <= bytes.endIndex {
            let id = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            let length = Int(bytes[at + 2]) | Int(bytes[at + 3]) << 8
            guard at + 4 + length <= bytes.endIndex else {
                wellFormed = false
                break
            }
            fields.append((id, bytes[(at + 4)..<(at + 4 + length)]))
            at += 4 + length
        }
        self.fields = fields
        isWellFormed = wellFormed
    }

    /// The data of each field with `id`, in order.
    func all(_ id: Int) -> [ArraySlice<UInt8>] {
        fields.filter { $0.id == id }.map(\.data)
    }

    /// `values` (the 32-bit fields of a record, in the order zip64 keeps
    /// them) with each one at 0xFFFFFFFF taken from the zip64 fields, 8
    /// bytes each in that order, as libarchive reads them (without a zip64
    /// field, they stay); nil when a zip64 field is too short for them.
    func resolvingZip64(_ values: [UInt64]) -> [UInt64]? {
        var values = values
        for data in all(Self.zip64) {
            var at = data.startIndex
            for index in values.indices where values[index] == 0xFFFF_FFFF {
                guard at + 8 <= data.endIndex else { return nil }
                values[index] = data[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
                at += 8
            }
        }
        return values
    }

    /// The modification time of the last field that records one
    /// (docs/tree-digest.md, "What archives hold"): an extended timestamp
    /// with bit 0 set, Info-ZIP's or PKWARE's Unix field, or NTFS's tag 1.
    /// The 4-byte times are unsigned seconds since 1970 (to 2106), as
    /// libarchive 3.6.2 reads them and ``extendedTimestamp(modified:)`` writes them.
    var modified: FileTimestamp? {
        fields.reversed().lazy.compactMap { Self.modified(id: $0.id, data: $0.data) }.first
    }

    private static func modified(id: Int, data: ArraySlice<UInt8>) -> FileTimestamp? {
        func unsigned(_ at: Int, _ count: Int) -> UInt64 {
            data.dropFirst(at).prefix(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        switch id {
        case extendedTimestamp:
            guard data.count >= 5, data[data.startIndex] & 1 != 0 else { return nil }
            return FileTimestamp(seconds: Int64(unsigned(1, 4)), nanoseconds: 0)
        case infoZipUnix, pkwareUnix:
            guard data.count >= 8 else { return nil }
            return FileTimestamp(seconds: Int64(unsigned(4, 4)), nanoseconds: 0)
        case ntfs:
            // 4 reserved bytes, then attributes: tag and size, 2 bytes each.
            var at = 4
            while at + 4 <= data.count {
                let (tag, size) = (unsigned(at, 2), Int(unsigned(at + 2, 2)))
                guard at + 4 + size <= data.count else { return nil }
                if tag == 1, size == 24 {
                    let units = unsigned(at + 4, 8)
                    return FileTimestamp(seconds: Int64(units / 10_000_000) - 11_644_473_600, nanoseconds: Int32(units % 10_000_000) * 100)
                }
                at += 4 + size
            }
            return nil
        default:
            return nil
        }
    }

    // MARK: - Writing

    /// A zip64 field holding `values`.
    static func zip64(_ values: [UInt64]) -> [UInt8] {
        var bytes = ZipBytes()
        bytes.u16(UInt16(zip64), UInt16(8 * values.count))
        bytes.u64(values)
        return bytes.bytes
    }

    /// An alignment field of `length` bytes in all (at least
    /// ``alignmentFieldLength``): padding that moves what follows.
    static func alignmentPadding(length: Int, boundary: Int) -> [UInt8] {
        var bytes = ZipBytes(capacity: length)
        bytes.u16(UInt16(alignment), UInt16(length - 4), UInt16(boundary))
        bytes.bytes([UInt8](repeating: 0, count: length - alignmentFieldLength))
        return bytes.bytes
    }

    /// The shortest alignment field: its header and the boundary.
    static let alignmentFieldLength = 6

    /// An extended timestamp holding the modification time only, and a
    /// Unix owner (0 when unknown), as libarchive writes them; the time's
    /// low 32 bits, read back unsigned.
    static func unixFields(modified: Int64, owner: FileOwner?) -> [UInt8] {
        var bytes = ZipBytes(capacity: 24)
        bytes.u16(UInt16(extendedTimestamp), 5)
        bytes.u8(1)
        bytes.u32(UInt32(truncatingIfNeeded: modified))
        bytes.u16(UInt16(unixOwner), 11)
        bytes.u8(1, 4)
        bytes.u32(owner?.userID ?? 0)
        bytes.u8(4)
        bytes.u32(owner?.groupID ?? 0)
        return bytes.bytes
    }
}
