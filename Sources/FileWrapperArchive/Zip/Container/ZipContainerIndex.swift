import FileWrapperKit
import Foundation
import Glibc

/// Reads a zip's end records and central directory, and nothing else, into
/// a FileWrapper tree whose regular files read their member on first use
/// (``ZipMemberSource``); a symbolic link's target, which is its member's
/// data, is read at once.
///
/// Every name goes through the in-memory reader's rules before the tree is
/// built, with its errors (``EntryPath``, ``ArchiveTree``): a name as the
/// central directory gives it (``ZipCentralNames/Name``; each local header
/// is checked against it when its member is read), UTF-8, relative, without
/// `..`, within the limits, at most once; no encrypted member, device node
/// or socket (a FIFO's mode makes a regular file, as libarchive reads it),
/// nor a directory that holds bytes. A member is refused
/// when it declares more than ``ArchiveReadLimits/maxBytes`` or a ratio over
/// ``ArchiveReadLimits/maxRatio`` (past ``ArchiveReadLimits/ratioGraceBytes``):
/// reading it never expands past what it declares.
struct ZipContainerIndex {
    /// A central directory record, checked, before the tree is built.
    private struct Record {
        var record: [UInt8]
        var path: String
        var names: [EntryName]
        var shown: [UInt8]
        var kind: FileKind
        var attributes: FileWrapper.Attributes
        var localHeaderOffset: Int64
        var compressedSize: Int64
        var size: Int
        var crc: UInt32
        var method: ZipCompressionMethod
        /// Where the member may end at the most (``ZipMemberExtents``).
        var bound = ZipMemberExtents.Bound(offset: .max)
    }

    let root: FileWrapper
    let archive: ZipArchiveFile

    /// Reads the zip at `path`; `name` stands for it in errors. Its members
    /// are read within `limits` (``ZipArchiveFile/limits``); its directory
    /// is checked against `checks`, `limits` unless given (a save checks
    /// the zip it wrote only for what its tree may hold, ``ZipContainerWriter``).
    init(path: String, name: String, limits: ArchiveReadLimits, checks: ArchiveReadLimits? = nil) throws {
        let checks = checks ?? limits
        let fd = try ArchiveError.io(archive: name) { try Syscall.open(path, in: AT_FDCWD, flags: O_RDONLY, path: { path }) }
        defer { Syscall.close(fd) }
        let info = try ArchiveError.io(archive: name) { try Syscall.status(of: fd, path: { path }) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ArchiveError(.io, archive: name, message: "is not a regular file; a zip is read lazily only from a file")
        }
        let input = ArchiveReadSource(fd: fd, name: name)
        let records = try Self.readDirectory(input, name: name, limits: checks)
        let archive = ZipArchiveFile(
            path: path, identity: FileIdentity(info),
            entries: records.map { ZipArchiveFile.Entry(path: PathKey($0.names).bytes, kind: $0.kind) }, limits: limits)

        var tree = ArchiveTree(archive: name)
        for record in records {
            switch record.kind {
            case .directory:
                try tree.addDirectory(at: record.names, attributes: record.attributes, entry: record.path)
            case .regularFile:
                let file = FileWrapper(regularFileFrom: Self.source(of: record, in: archive))
                file.attributes = record.attributes
                try tree.insert(file, at: record.names, entry: record.path)
            case .symbolicLink:
                guard record.size <= checks.maxLinkLength else {
                    throw ArchiveError(.limitExceeded, archive: name, entry: record.path,
                                       message: "the symlink's target is longer than \(checks.maxLinkLength) bytes", limit: .maxLinkLength)
                }
                var target: [UInt8] = []
                try ArchiveError.io(archive: name, entry: record.path) {
                    try Self.source(of: record, in: archive).forEachBlock(blockSize: 1 << 16) { block throws(FileWrapperError) in target += block }
                }
                let link = FileWrapper(symbolicLinkWithDestinationBytes: target)
                link.attributes = record.attributes
                try tree.insert(link, at: record.names, entry: record.path)
            }
        }
        root = tree.root
        self.archive = archive
    }

    private static func source(of record: Record, in archive: ZipArchiveFile) -> ZipMemberSource {
        ZipMemberSource(archive: archive, entry: record.path, centralRecord: record.record, shownName: record.shown,
                        localHeaderOffset: record.localHeaderOffset, compressedSize: record.compressedSize, size: record.size,
                        crc: record.crc, method: record.method, bound: record.bound, attributes: record.attributes)
    }

    /// The central directory's records (``ZipCentralDirectory``), checked,
    /// in order. Members that overlap are refused here as far as the
    /// directory tells (``ZipMemberExtents``: each member's local header
    /// taken as short as it can be, the header not read), and as each
    /// member is read, its local header known (``ZipMemberSource/dataStart(in:)``).
    private static func readDirectory(
        _ source: ArchiveReadSource, name: String, limits: ArchiveReadLimits
    ) throws -> [Record] {
        func damaged(_ damage: ZipCentralDirectory.Damage, of count: UInt64) -> ArchiveError {
            let record = damage.record.map { "central directory record \($0) (of \(count) the end record gives): " } ?? ""
            return ArchiveError(.corrupt, archive: name, entry: damage.name.map { PathDisplay.text($0) }, message: record + damage.message)
        }
        let found: ZipCentralDirectory?
        do { found = try ZipCentralDirectory(source: source) } catch { throw damaged(error, of: 0) }
        guard let directory = found else {
            throw ArchiveError(.unsupportedFormat, archive: name, message: "has no zip central directory to read it lazily by")
        }
        var entries = directory.records()
        var records: [Record] = []
        records.reserveCapacity(min(directory.capacity, limits.maxEntries))
        do {
            while let entry = try entries.next() {
                guard entries.count <= limits.maxEntries else {
                    throw ArchiveError(.limitExceeded, archive: name, message: "the archive has more than \(limits.maxEntries) entries", limit: .maxEntries)
                }
                records.append(try check(entry, archive: name, limits: limits))
            }
        } catch let damage as ZipCentralDirectory.Damage {
            throw damaged(damage, of: directory.end.count)
        }
        let extents = records.map {
            ZipMemberExtents.Extent(start: $0.localHeaderOffset, headerLength: ZipLocalHeader.fixedLength, compressedSize: UInt64($0.compressedSize),
                                    hasDescriptor: false, name: Array($0.path.utf8))
        }
        for (index, bound) in try ZipMemberExtents.check(extents, directoryStart: directory.start, archive: name).enumerated() {
            records[index].bound = bound
        }
        return records
    }

    /// One record, through the in-memory reader's rules.
    private static func check(_ entry: ZipCentralDirectory.Entry, archive: String, limits: ArchiveReadLimits) throws -> Record {
        let (record, fields, size, compressedSize) = (entry.record, entry.fields, entry.size, entry.compressedSize)
        let name = ZipCentralNames.Name(bytes: record.name, flags: record.flags, fields: fields)
        guard let path = String(validating: name.stored, as: UTF8.self) else {
            throw ArchiveError(.unsafePath, archive: archive, entry: PathDisplay.text(name.stored), message: "the name cannot be decoded as UTF-8")
        }
        guard !record.flags.isEncrypted else {
            throw ArchiveError(.encrypted, archive: archive, entry: path, message: "the entry is encrypted")
        }
        let names = try EntryPath(path, archive: archive, limits: limits).components
        guard size <= UInt64(Int64.max), compressedSize <= UInt64(Int64.max) else {
            throw ArchiveError(.corrupt, archive: archive, entry: path, message: "the central directory gives sizes past 2^63 bytes")
        }
        guard let localHeaderOffset = entry.localHeader else {
            throw ArchiveError(.corrupt, archive: archive, entry: path, message: "the member's local header would lie outside the archive")
        }
        let recorded = ZipRecordedMetadata(central: record, centralFields: fields, localFields: ZipExtraFields([]))
        let mode = record.versionMadeBy >> 8 == ZipCentralRecord.unixHost ? mode_t(record.externalAttributes >> 16) & S_IFMT : 0
        let kind: FileKind
        if name.stored.last == UInt8(ascii: "/") || mode == S_IFDIR {
            guard size == 0 else {
                throw ArchiveError(.corrupt, archive: archive, entry: path,
                                   message: "the member's name ends in \"/\", which makes it a directory, but it holds \(size) bytes of contents")
            }
            kind = .directory
        } else if mode == S_IFLNK {
            kind = .symbolicLink
        } else if mode == S_IFREG || mode == 0 || mode == S_IFIFO {
            // A FIFO's mode is what Info-ZIP's zip records for a member read
            // from standard input (`cmd | zip out.zip -`): libarchive reads it
            // as a regular file, and so does this.
            kind = .regularFile
        } else {
            throw ArchiveError(.unsupportedEntry, archive: archive, entry: path, message: "device nodes, FIFOs and sockets are not supported")
        }
        guard let method = ZipCompressionMethod(rawValue: record.method) else {
            throw ArchiveError(.unsupportedFormat, archive: archive, entry: path, message:
                "the member is compressed with method \(record.method); a zip is read lazily only when its members are stored, "
                    + "deflated, or compressed with bzip2 (12), LZMA (14), zstd (93), xz (95) or PPMd (98)")
        }
        guard method != .stored || size == compressedSize else {
            throw ArchiveError(.corrupt, archive: archive, entry: path,
                               message: "the member is stored, but its compressed size \(compressedSize) is not its size \(size)")
        }
        guard size <= UInt64(limits.maxBytes) else {
            throw ArchiveError(.limitExceeded, archive: archive, entry: path,
                               message: "the member declares \(size) bytes, over the limit of \(limits.maxBytes) bytes", limit: .maxBytes)
        }
        if Int64(size) > limits.ratioGraceBytes, Double(size) > limits.maxRatio * Double(max(compressedSize, 1)) {
            throw ArchiveError(.limitExceeded, archive: archive, entry: path, message:
                "\(size) bytes from \(compressedSize) compressed bytes exceed the compression ratio limit of \(limits.maxRatio):1", limit: .maxRatio)
        }
        return Record(
            record: Array(entry.bytes.bytes(0, count: entry.bytes.count)), path: path, names: names, shown: name.shown, kind: kind,
            attributes: FileWrapper.Attributes(permissions: recorded.permissions, modificationDate: recorded.modified),
            localHeaderOffset: localHeaderOffset, compressedSize: Int64(compressedSize), size: Int(size),
            crc: record.crc, method: method)
    }
}
