import CCRC32
import FileWrapperKit
import Glibc

/// A regular file's bytes as a member of a zip on disk (``ZipArchiveFile``),
/// read on first use, a member at a time: its local header is read and
/// checked against the central directory, its data read in pieces and
/// decoded, its size and CRC-32 checked as it goes, and nothing else of
/// the archive is read. A save copies the member as stored from here
/// (``ZipContainerWriter``) while its wrapper still has the attributes it
/// was read with.
final class ZipMemberSource: RegularFileSource {
    let archive: ZipArchiveFile
    /// The member's path as the tree names it, for errors.
    let entry: String
    /// The central directory record, as the archive stores it.
    let centralRecord: [UInt8]
    /// The name the central directory shows (``ZipCentralNames/Name/shown``),
    /// which the local header must show too.
    let shownName: [UInt8]
    /// Where the local header begins, corrected for bytes before the zip.
    let localHeaderOffset: Int64
    let compressedSize: Int64
    let size: Int
    let crc: UInt32
    /// Stored and deflated are expanded here (``RawInflater``); the others by
    /// libarchive over the member alone
    /// (``decodeWithLibArchive(_:dataStart:header:blockSize:deliver:)``).
    let method: ZipCompressionMethod
    /// Where the member may end at the most: where the next member or the
    /// central directory begins (``ZipMemberExtents``).
    let bound: ZipMemberExtents.Bound
    /// The attributes the wrapper was given when it was read (or written):
    /// a member is copied as stored only while its wrapper still has them.
    let attributes: FileWrapper.Attributes

    init(archive: ZipArchiveFile, entry: String, centralRecord: [UInt8], shownName: [UInt8], localHeaderOffset: Int64,
         compressedSize: Int64, size: Int, crc: UInt32, method: ZipCompressionMethod, bound: ZipMemberExtents.Bound, attributes: FileWrapper.Attributes) {
        self.archive = archive
        self.entry = entry
        self.centralRecord = centralRecord
        self.shownName = shownName
        self.localHeaderOffset = localHeaderOffset
        self.compressedSize = compressedSize
        self.size = size
        self.crc = crc
        self.method = method
        self.bound = bound
        self.attributes = attributes
    }

    /// The same member with other attributes: what its wrapper has now.
    func with(attributes: FileWrapper.Attributes) -> ZipMemberSource {
        ZipMemberSource(archive: archive, entry: entry, centralRecord: centralRecord, shownName: shownName,
                        localHeaderOffset: localHeaderOffset, compressedSize: compressedSize, size: size, crc: crc,
                        method: method, bound: bound, attributes: attributes)
    }

    /// Where the member's data begins in the open zip `fd`, after its local
    /// header, which must name the member as the central directory does,
    /// with the same method, unencrypted, and the member must end before
    /// the next member or the central directory begins; and that header.
    func dataStart(in fd: CInt) throws(FileWrapperError) -> (start: Int64, header: ZipLocalHeader) {
        let fixed = try readBytes(fd, count: ZipLocalHeader.fixedLength)
        guard let length = ZipLocalHeader.length(decoding: LittleEndianBytes(bytes: fixed)) else {
            throw archive.damage(member: entry, "no local header where the central directory says the member begins")
        }
        let bytes = try readBytes(fd, count: length)
        guard let header = ZipLocalHeader(decoding: LittleEndianBytes(bytes: bytes)) else {
            throw archive.damage(member: entry, "its local header cannot be read")
        }
        let name = ZipCentralNames.Name(bytes: header.name, flags: header.flags, fields: ZipExtraFields(header.extra))
        guard name.shown.elementsEqual(shownName) else {
            throw archive.damage(member: entry, "the local header names this member \(name), the central directory \"\(PathDisplay.text(shownName))\"; "
                + "a zip whose local headers and central directory disagree is refused")
        }
        guard header.method == method.rawValue, !header.flags.isEncrypted else {
            throw archive.damage(member: entry, "the local header gives another method or encryption than the central directory")
        }
        let start = localHeaderOffset + Int64(length)
        guard compressedSize <= archive.identity.size - start else {
            throw archive.damage(member: entry, "the member's data would end past the archive's end")
        }
        let central = ZipCentralRecord(decoding: LittleEndianBytes(bytes: centralRecord))
        let extent = ZipMemberExtents.Extent(start: localHeaderOffset, headerLength: length, compressedSize: UInt64(compressedSize),
                                             hasDescriptor: header.hasDataDescriptor && central?.hasDataDescriptor == true,
                                             name: Array(entry.utf8))
        guard extent.end <= bound.offset else {
            throw archive.damage(member: entry, ZipMemberExtents.overlap(extent, bound))
        }
        return (start, header)
    }

    /// The `count` bytes at the local header.
    private func readBytes(_ fd: CInt, count: Int) throws(FileWrapperError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
        defer { buffer.deallocate() }
        try archive.read(fd, into: buffer, at: localHeaderOffset, member: entry)
        return Array(buffer)
    }

    func forEachBlock(
        blockSize: Int, _ body: (UnsafeRawBufferPointer) throws(FileWrapperError) -> Void
    ) throws(FileWrapperError) {
        let fd = try archive.open()
        defer { Syscall.close(fd) }
        let (start, header) = try dataStart(in: fd)
        var checksum: UInt32 = 0
        var produced = 0
        /// Counts and checks `block`, then hands it on.
        func deliver(_ block: UnsafeRawBufferPointer) throws(FileWrapperError) {
            guard block.count <= size - produced else {
                throw archive.damage(member: entry, "the data expands to more than the \(size) bytes that the archive gives")
            }
            checksum = ccrc32_update(checksum, block.baseAddress, block.count)
            produced += block.count
            try body(block)
        }
        switch method {
        case .stored, .deflated:
            try readOrInflate(fd, dataStart: start, blockSize: blockSize, deliver: deliver)
        case .bzip2, .lzma, .zstd, .xz, .ppmd:
            // An empty member has no bytes to decode (and libarchive 3.6.2
            // fails on the empty LZMA stream Python's zipfile writes for one).
            if size > 0 {
                try decodeWithLibArchive(fd, dataStart: start, header: header, blockSize: blockSize, deliver: deliver)
            }
        }
        guard produced == size else {
            throw archive.damage(member: entry, "the data expands to \(produced) bytes, not the \(size) that the archive gives")
        }
        guard checksum == crc else {
            throw archive.damage(member: entry, "the contents' CRC-32 is \(Self.hex(checksum)), the archive gives \(Self.hex(crc))")
        }
        try archive.checkUnchanged(fd)
    }

    /// Reads a stored member's data, or inflates a deflated one's
    /// (``RawInflater/inflate(compressedSize:input:output:read:deliver:failure:)``),
    /// from `dataStart` in the open zip `fd`, in pieces of at most 256 KiB,
    /// into blocks of at most `blockSize` bytes for `deliver`; the deflate
    /// stream must end with the compressed data.
    private func readOrInflate(
        _ fd: CInt, dataStart start: Int64, blockSize: Int, deliver: (UnsafeRawBufferPointer) throws(FileWrapperError) -> Void
    ) throws(FileWrapperError) {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(compressedSize, 1 << 18)) + 1, alignment: 16)
        defer { input.deallocate() }
        // Compressed bytes read so far.
        var consumed: Int64 = 0
        guard method == .deflated else {
            while consumed < compressedSize {
                let piece = UnsafeMutableRawBufferPointer(rebasing: input[..<Int(min(Int64(min(input.count, blockSize)), compressedSize - consumed))])
                try archive.read(fd, into: piece, at: start + consumed, member: entry)
                consumed += Int64(piece.count)
                try deliver(UnsafeRawBufferPointer(piece))
            }
            return
        }
        guard let inflater = RawInflater() else {
            throw FileWrapperError(.ioError, path: archive.path, detail: "could not allocate memory to inflate member \"\(entry)\"")
        }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(blockSize, max(size, 1))), alignment: 16)
        defer { output.deallocate() }
        try inflater.inflate(
            compressedSize: compressedSize, input: input, output: output,
            read: { (piece, offset) throws(FileWrapperError) in try archive.read(fd, into: piece, at: start + offset, member: entry) },
            deliver: deliver,
            failure: { failure in
                failure == .outOfMemory
                    ? FileWrapperError(.ioError, path: archive.path, detail: "could not allocate memory to inflate member \"\(entry)\"")
                    : archive.damage(member: entry, failure.message)
            })
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
