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
/// its name. The records' layouts are those of the zip module
/// (``ZipLocalHeader``, ``ZipCentralRecord``, ``ZipDataDescriptor``,
/// ``ZipExtraFields``), which the readers share.
final class ZipEntry {
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
    /// Stored or deflated, the methods the writer writes.
    var method = ZipCompressionMethod.stored
    var checksum: UInt32 = 0
    var compressedSize: UInt64 = 0
    /// Where the local header starts.
    var offset: UInt64 = 0
    /// Whether the CRC and the compressed size follow the data in a data
    /// descriptor, as they are not known when the local header is written.
    var hasDescriptor = false
    /// Where, modulo ``ZipWriter/alignmentBoundary``, the bytes after this
    /// entry are to begin (``ZipWriter/alignEnd(ofNextEntryAt:)``), and the
    /// length of the alignment field in its local header that makes them.
    var endAlignment: Int?
    var padding = 0
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
        needsZip64 ? 45 : method == .deflated || isDirectory ? 20 : 10
    }

    /// UTF-8 names; the data descriptor.
    private var flags: ZipFlags { hasDescriptor ? [.utf8Name, .dataDescriptor] : .utf8Name }

    var localHeader: [UInt8] {
        var extra: [UInt8] = []
        if hasZip64Sizes {
            // Both sizes, as a local zip64 field must hold; what is known now.
            extra += ZipExtraFields.zip64([size, method == .stored ? size : 0])
        }
        if !plain { extra += ZipExtraFields.unixFields(modified: modified, owner: owner) }
        if padding > 0 { extra += ZipExtraFields.alignmentPadding(length: padding, boundary: ZipWriter.alignmentBoundary) }
        let (crc, compressed, expanded): (UInt32, UInt32, UInt32) =
            if hasZip64Sizes {
                (0, .max, .max)
            } else if hasDescriptor {
                // As libarchive writes them: the sizes known now, CRC 0.
                (0, UInt32(method == .stored ? size : 0), UInt32(size))
            } else {
                (checksum, UInt32(compressedSize), UInt32(size))
            }
        return ZipLocalHeader(
            versionNeeded: versionNeeded, flags: flags, method: method.rawValue, dosDateTime: ZipDOSDateTime.encoded(modified),
            crc: crc, compressedSize: compressed, size: expanded, name: name[...], extra: extra[...]
        ).encoded()
    }

    var descriptor: [UInt8] {
        ZipDataDescriptor(crc: checksum, compressedSize: compressedSize, size: size, isZip64: hasZip64Sizes).encoded()
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
        var extra: [UInt8] = large.isEmpty ? [] : ZipExtraFields.zip64(large)
        if !plain { extra += ZipExtraFields.unixFields(modified: modified, owner: owner) }
        return ZipCentralRecord(
            versionMadeBy: ZipCentralRecord.unixHost << 8 | versionNeeded, versionNeeded: versionNeeded, flags: flags,
            method: method.rawValue, dosDateTime: ZipDOSDateTime.encoded(modified), crc: checksum, compressedSize: compressed32,
            size: size32, externalAttributes: externalAttributes, localHeaderOffset: offset32, name: name[...], extra: extra[...]
        ).encoded()
    }
}

