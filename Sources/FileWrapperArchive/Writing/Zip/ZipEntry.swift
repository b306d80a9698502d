import FileWrapperKit
import Glibc

/// One entry of a zip being written, and the bytes of its local header,
/// data descriptor and central directory record.
///
/// The conventions are libarchive's and Info-ZIP's, as `zipinfo -v` shows
/// them: made by Unix, the UTF-8 flag on every name, Unix mode and type in
/// the external attributes (with MS-DOS's directory bit on directories), an
/// extended timestamp ("UT", the modification time) and a Unix owner ("ux")
/// in the extra field, MS-DOS date and time in UTC. A ``plain`` entry (EPUB's
/// `mimetype`) has no extra field, so that its contents start right after
/// its name.
final class ZipEntry {
    enum Method: UInt16 {
        case store = 0, deflate = 8
    }

    /// The path, with a trailing `/` for a directory.
    let name: [UInt8]
    let path: String
    let isDirectory: Bool
    let externalAttributes: UInt32
    let modified: Int64
    let owner: FileOwner?
    let plain: Bool
    /// The uncompressed size.
    let size: UInt64
    var method = Method.store
    var checksum: UInt32 = 0
    var compressedSize: UInt64 = 0
    /// Where the local header starts.
    var offset: UInt64 = 0
    /// Whether the CRC and the compressed size follow the data in a data
    /// descriptor, as they are not known when the local header is written.
    var hasDescriptor = false
    /// Where its fields turn to zip64.
    let thresholds: Zip64Thresholds

    init(_ header: ArchiveEntryHeader, plain: Bool, thresholds: Zip64Thresholds) {
        self.thresholds = thresholds
        path = header.path
        isDirectory = header.kind == .directory
        name = Array(header.path.utf8) + (isDirectory ? [UInt8(ascii: "/")] : [])
        let type: mode_t = switch header.kind {
        case .regularFile: S_IFREG
        case .directory: S_IFDIR
        case .symbolicLink: S_IFLNK
        }
        let msDOSDirectory: UInt32 = isDirectory ? 0x10 : 0
        externalAttributes = (UInt32(type) | UInt32(header.permissions & 0o7777)) << 16 | msDOSDirectory
        modified = header.modified.seconds
        owner = header.owner
        self.plain = plain
        size = UInt64(header.kind == .symbolicLink ? header.linkTarget?.count ?? 0 : header.size)
    }

    /// zip64 sizes in the local header and the descriptor.
    private var hasZip64Sizes: Bool { hasDescriptor && size >= thresholds.descriptorSizes }

    private var needsZip64: Bool {
        hasZip64Sizes || offset >= thresholds.bytes || compressedSize >= thresholds.bytes || size >= thresholds.bytes
    }

    /// 4.5 for zip64, 2.0 for deflate and directories, 1.0 otherwise.
    private var versionNeeded: UInt16 {
        needsZip64 ? 45 : method == .deflate || isDirectory ? 20 : 10
    }

    /// UTF-8 names; the data descriptor.
    private var flags: UInt16 { 0x0800 | (hasDescriptor ? 0x0008 : 0) }

    var localHeader: [UInt8] {
        var extra = ZipBytes()
        if hasZip64Sizes {
            // Both sizes, as a local zip64 field must hold; what is known now.
            extra.u16(0x0001, 16)
            extra.u64(size, method == .store ? size : 0)
        }
        if !plain { appendUnixFields(to: &extra) }
        var bytes = ZipBytes()
        bytes.u32(0x0403_4B50)
        bytes.u16(versionNeeded, flags, method.rawValue)
        bytes.u32(Self.dosDateTime(modified))
        if hasZip64Sizes {
            bytes.u32(0, .max, .max)
        } else if hasDescriptor {
            // As libarchive writes them: the sizes known now, CRC 0.
            bytes.u32(0, UInt32(method == .store ? size : 0), UInt32(size))
        } else {
            bytes.u32(checksum, UInt32(compressedSize), UInt32(size))
        }
        bytes.u16(UInt16(name.count), UInt16(extra.bytes.count))
        return bytes.bytes + name + extra.bytes
    }

    var descriptor: [UInt8] {
        var bytes = ZipBytes()
        bytes.u32(0x0807_4B50, checksum)
        if hasZip64Sizes {
            bytes.u64(compressedSize, size)
        } else {
            bytes.u32(UInt32(compressedSize), UInt32(size))
        }
        return bytes.bytes
    }

    var centralRecord: [UInt8] {
        // Each field too large for its 32 bits is 0xFFFFFFFF and goes, in
        // this order, into the zip64 extra field.
        var large: [UInt64] = []
        func field(_ value: UInt64) -> UInt32 {
            guard value >= thresholds.bytes else { return UInt32(value) }
            large.append(value)
            return UInt32.max
        }
        let size32 = field(size)
        let compressed32 = field(compressedSize)
        let offset32 = field(offset)
        var extra = ZipBytes()
        if !large.isEmpty {
            extra.u16(0x0001, UInt16(8 * large.count))
            extra.u64(large)
        }
        if !plain { appendUnixFields(to: &extra) }
        var bytes = ZipBytes()
        bytes.u32(0x0201_4B50)
        bytes.u16(3 << 8 | versionNeeded, versionNeeded, flags, method.rawValue)
        bytes.u32(Self.dosDateTime(modified), checksum, compressed32, size32)
        // Name, extra field and comment lengths, disk number, internal attributes.
        bytes.u16(UInt16(name.count), UInt16(extra.bytes.count), 0, 0, 0)
        bytes.u32(externalAttributes, offset32)
        return bytes.bytes + name + extra.bytes
    }

    /// The extended timestamp (modification time only) and the owner, as
    /// libarchive writes them; owner 0 when unknown.
    private func appendUnixFields(to extra: inout ZipBytes) {
        extra.u16(0x5455, 5)
        extra.u8(1)
        extra.u32(UInt32(truncatingIfNeeded: modified))
        extra.u16(0x7875, 11)
        extra.u8(1, 4)
        extra.u32(owner?.userID ?? 0)
        extra.u8(4)
        extra.u32(owner?.groupID ?? 0)
    }

    /// The end of the central directory of `count` entries, `size` bytes at
    /// `offset`: with a zip64 end record and its locator first when a count
    /// or a position does not fit the classic record (is at or past
    /// `thresholds`), where it then reads 0xFFFF or 0xFFFFFFFF.
    static func endRecords(count: Int, offset: UInt64, size: UInt64, thresholds: Zip64Thresholds) -> [UInt8] {
        var bytes = ZipBytes()
        let entries = UInt64(count)
        if entries >= thresholds.entries || offset >= thresholds.bytes || size >= thresholds.bytes {
            // The record's size after this field, made by and needed, disk numbers.
            bytes.u32(0x0606_4B50)
            bytes.u64(44)
            bytes.u16(3 << 8 | 45, 45)
            bytes.u32(0, 0)
            bytes.u64(entries, entries, size, offset)
            // The locator: the zip64 end record's disk and offset, the disk count.
            bytes.u32(0x0706_4B50, 0)
            bytes.u64(offset + size)
            bytes.u32(1)
        }
        let entries16 = entries >= thresholds.entries ? UInt16.max : UInt16(entries)
        bytes.u32(0x0605_4B50)
        bytes.u16(0, 0, entries16, entries16)
        bytes.u32(size >= thresholds.bytes ? .max : UInt32(size), offset >= thresholds.bytes ? .max : UInt32(offset))
        bytes.u16(0)
        return bytes.bytes
    }

    /// The MS-DOS date (high 16 bits) and time (low 16 bits) of `seconds`
    /// in UTC, with two-second resolution, so that a zip's bytes do not
    /// depend on the time zone of the process that wrote it. Like
    /// libarchive, a time before 1980 becomes 1980-01-01 00:00:00 and one
    /// after 2107 becomes 2107-12-31 23:59:58, the range the fields can
    /// hold. Computed here rather than with `gmtime_r`, which reads `TZ`
    /// and under a `right/` zone counts leap seconds.
    static func dosDateTime(_ seconds: Int64) -> UInt32 {
        guard seconds >= 315_532_800 else { return 0x0021_0000 }  // 1980-01-01 00:00:00 UTC
        guard seconds < 4_354_819_200 else { return 0xFF9F_BF7D }  // 2108-01-01 00:00:00 UTC
        let days = seconds / 86400
        let secondOfDay = seconds % 86400
        // Days since 1970-01-01 to a proleptic Gregorian date (Howard
        // Hinnant's civil_from_days, for non-negative days).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        let date = (year - 1980) << 9 | month << 5 | day
        let time = (secondOfDay / 3600) << 11 | (secondOfDay / 60 % 60) << 5 | (secondOfDay % 60) / 2
        return UInt32(date << 16 | time)
    }
}

/// Little-endian fields appended in order, as zip records are laid out,
/// each call naming its fields' width.
struct ZipBytes {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ fields: UInt8...) { bytes += fields }
    mutating func u16(_ fields: UInt16...) { append(fields) }
    mutating func u32(_ fields: UInt32...) { append(fields) }
    mutating func u64(_ fields: UInt64...) { append(fields) }
    mutating func u64(_ fields: [UInt64]) { append(fields) }

    private mutating func append<Field: FixedWidthInteger>(_ fields: [Field]) {
        for field in fields {
            withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
        }
    }
}
