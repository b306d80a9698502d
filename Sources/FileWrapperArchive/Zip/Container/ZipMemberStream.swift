import FileWrapperKit

/// One zip member as a zip stream of that member alone, for libarchive's
/// streaming zip reader to decode (``ZipMemberSource/decodeWithLibArchive(_:dataStart:header:blockSize:deliver:)``):
/// a local header made from the central directory's sizes and CRC-32, with
/// no data descriptor to look for, then the member's compressed data, read
/// from the zip with `pread`, and nothing past it.
final class ZipMemberStream: CompressionDecoder {
    private let member: ZipMemberSource
    /// The open zip, and where the member's data begins in it.
    private let fd: CInt
    private let dataStart: Int64
    private let header: [UInt8]
    /// Bytes given so far: the header's, then the data's.
    private var position = 0
    /// Why reading the zip failed, as the member's reader reports it
    /// (the zip ends early, or cannot be read).
    private(set) var failure: FileWrapperError?

    /// The stream of `member`, whose data begins at `dataStart` in the open
    /// zip `fd`, after the local header `local`.
    init(member: ZipMemberSource, fd: CInt, dataStart: Int64, local: ZipLocalHeader) {
        self.member = member
        self.fd = fd
        self.dataStart = dataStart
        header = Self.header(of: member, local: local)
    }

    /// The local header libarchive reads: the member's name in UTF-8 (bit
    /// 11), the method and its option bits from the stored header (bits 1
    /// and 2: an LZMA stream's end marker), the size, compressed size and
    /// CRC-32 the central directory gives, in a zip64 field when they do
    /// not fit, and no data descriptor (bit 3 clear): libarchive then reads
    /// exactly the compressed size and no further.
    private static func header(of member: ZipMemberSource, local: ZipLocalHeader) -> [UInt8] {
        let zip64 = member.size >= 0xFFFF_FFFF || member.compressedSize >= 0xFFFF_FFFF
        var extra = ZipBytes(capacity: 20)
        if zip64 {
            extra.u16(UInt16(ZipExtraFields.zip64), 16)
            extra.u64(UInt64(member.size), UInt64(member.compressedSize))
        }
        return ZipLocalHeader(
            versionNeeded: local.versionNeeded, flags: local.flags.intersection(.compressionOption).union(.utf8Name), method: member.method.rawValue,
            dosDateTime: local.dosDateTime, crc: member.crc,
            compressedSize: zip64 ? .max : UInt32(member.compressedSize), size: zip64 ? .max : UInt32(member.size),
            name: Array(member.entry.utf8)[...], extra: extra.bytes[...]
        ).encoded()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if position < header.count {
            let count = min(buffer.count, header.count - position)
            header[position..<(position + count)].withUnsafeBytes { buffer.copyMemory(from: $0) }
            position += count
            return count
        }
        let read = Int64(position - header.count)
        let count = Int(min(Int64(buffer.count), member.compressedSize - read))
        guard count > 0 else { return 0 }
        do throws(FileWrapperError) {
            try member.archive.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), at: dataStart + read, member: member.entry)
        } catch {
            failure = error
            return -1
        }
        position += count
        return count
    }

    var error: ArchiveError? {
        failure.map { ArchiveError($0, archive: member.archive.path, entry: member.entry) }
    }

    var archiveBytesRead: Int64 {
        Int64(max(0, position - header.count))
    }

    /// A member is read once, in order.
    func rewound() -> (any CompressionDecoder)? {
        nil
    }
}
