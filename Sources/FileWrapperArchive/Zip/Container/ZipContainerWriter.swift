import FileWrapperKit
import Foundation
import Glibc

/// Writes a FileWrapper tree as a zip, copying as stored every member that
/// a wrapper still reads from a zip unchanged (``ZipMemberSource``, its
/// wrapper's contents and attributes as they were read): local header,
/// compressed data and descriptor go from the old zip to the new one with
/// `copy_file_range`, never inflated or deflated, and get a central record
/// with their new offset. Every other member goes through ``ZipWriter``,
/// deflated on every core; one written just before a copied member is
/// padded so that the copy lands where it lay modulo a page
/// (``ZipWriter/alignEnd(ofNextEntryAt:)``).
///
/// Members keep the order of the zip the tree came from (a stored
/// `mimetype` stays first); members that are new go at the end, in the
/// order ``ArchiveWriter`` writes a tree. A directory that zip did not
/// list (only its members' paths made it) is not added. The zip is written
/// beside `url` and swapped into place (``PendingReplacement``), so the
/// zip it replaces, which may be the very one read from, stays whole
/// until then. Afterwards, the tree's regular files read from the new zip.
struct ZipContainerWriter {
    /// An entry of the tree: its archive path, the bytes the zip's index
    /// knows it by (``ZipArchiveFile/Entry/path``), and its wrapper.
    private struct TreeEntry {
        var path: String
        var key: [UInt8]
        var wrapper: FileWrapper
    }

    let options: ArchiveWriteOptions

    func write(_ root: FileWrapper, to url: URL) throws {
        let archive = url.relativePath
        guard root.isDirectory else {
            throw ArchiveError(.io, archive: archive, message: "a zip container is written from a directory wrapper, whose children are its members")
        }
        let entries = Self.entries(of: root)
        let plan = plan(entries)
        let name = url.lastPathComponent
        let parentPath = url.deletingLastPathComponent().path
        let parent = try ArchiveError.io(archive: archive) {
            try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        }
        defer { Syscall.close(parent) }
        if let existing = Syscall.statusIfPresent(of: name, in: parent), existing.st_mode & S_IFMT == S_IFDIR {
            throw ArchiveError(.io, archive: archive, message: "is a directory; an archive is written only over a file")
        }
        let replacement = PendingReplacement(of: name, in: parent, parentPath: parentPath)
        let fd = try ArchiveError.io(archive: archive) { try replacement.createFile() }
        var sources = OpenSources()
        defer { sources.closeAll() }
        var written: FileIdentity?
        do {
            defer { Syscall.close(fd) }
            let writeback = options.durability == .synced ? WritebackStarter(fd: fd) : nil
            var options = options
            options.format = .zip
            let copies = CopyRun(to: fd, named: archive, writeback: writeback)
            let writer = try ZipWriter(options: options, name: archive) { bytes in
                try copies.flush()
                try ArchiveError.io(archive: archive) { try Syscall.writeAll(bytes, to: fd, path: { archive }) }
                writeback?.wrote(bytes.count)
            }
            let clock = EntryClock(options)
            for (position, index) in plan.enumerated() {
                let entry = entries[index]
                if let member = Self.storedCopy(of: entry.wrapper),
                   let copy = try sources.copy(of: member, orFromMemory: entry.wrapper, archive: archive, entry: entry.path) {
                    try writer.writeCopiedMember(length: copy.length, centralRecord: { offset, thresholds in
                        Self.centralRecord(member.centralRecord, offset: offset, thresholds: thresholds)
                    }, copy: { offset in
                        try copies.add(copy.length, from: copy.fd, at: member.localHeaderOffset, to: offset, of: member, entry: entry.path)
                    })
                } else {
                    if position + 1 < plan.count, let next = Self.storedCopy(of: entries[plan[position + 1]].wrapper) {
                        writer.alignEnd(ofNextEntryAt: Int(next.localHeaderOffset % Int64(ZipWriter.alignmentBoundary)))
                    }
                    try ArchiveWriter.writeEntry(entry.wrapper, path: entry.path, to: writer, clock: clock, options: options,
                                                 stored: position == 0 && entry.path == options.firstStoredEntry)
                }
            }
            try writer.close()
            try ArchiveError.io(archive: archive) {
                try sources.checkUnchanged()
                written = FileIdentity(try Syscall.status(of: fd, path: { archive }))
                try replacement.commit(options.durability, file: fd)
            }
        } catch {
            replacement.discard()
            throw error
        }
        if let written { Self.rebind(entries, toZipAt: url, identity: written) }
    }

    /// The member `wrapper` is copied from as stored: the one it reads from
    /// a zip, while it has the attributes it was read with.
    private static func storedCopy(of wrapper: FileWrapper) -> ZipMemberSource? {
        guard let member = wrapper.regularFileSource as? ZipMemberSource, member.attributes == wrapper.attributes else { return nil }
        return member
    }

    /// The tree's entries in ``ArchiveWriter``'s order: depth first, each
    /// directory's children by the bytes of their names, a directory
    /// before what it holds.
    private static func entries(of root: FileWrapper) -> [TreeEntry] {
        var entries: [TreeEntry] = []
        var pending = children(of: root, under: nil)
        while let entry = pending.popLast() {
            entries.append(entry)
            if entry.wrapper.isDirectory { pending += children(of: entry.wrapper, under: entry) }
        }
        return entries
    }

    private static func children(of directory: FileWrapper, under parent: TreeEntry?) -> [TreeEntry] {
        (directory.fileWrappers ?? [:])
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { key, wrapper in
                TreeEntry(path: parent.map { "\($0.path)/\(key)" } ?? key,
                          key: parent.map { $0.key + [UInt8(ascii: "/")] + Array(key.utf8) } ?? Array(key.utf8), wrapper: wrapper)
            }
            .reversed()
    }

    /// The order to write `entries` in (their indices): those the zip the
    /// tree came from lists, in its order, then the others; without such a
    /// zip, ``ArchiveWriteOptions/firstStoredEntry`` first.
    private func plan(_ entries: [TreeEntry]) -> [Int] {
        let original = entries.lazy.compactMap { ($0.wrapper.regularFileSource as? ZipMemberSource)?.archive }.first
        var indices: [[UInt8]: Int] = [:]
        for (index, entry) in entries.enumerated() { indices[entry.key] = index }
        var planned = [Bool](repeating: false, count: entries.count)
        var order: [Int] = []
        // Directories the zip did not list, though its members' paths made them.
        var implied = Set<[UInt8]>()
        if let original {
            for member in original.entries {
                var end = member.path.count
                while let slash = member.path[..<end].lastIndex(of: UInt8(ascii: "/")) {
                    implied.insert(Array(member.path[..<slash]))
                    end = slash
                }
                guard let index = indices[member.path], !planned[index], Self.kind(of: entries[index].wrapper) == member.kind else { continue }
                planned[index] = true
                order.append(index)
            }
            for member in original.entries where member.kind == .directory { implied.remove(member.path) }
        } else if let first = options.firstStoredEntry, let index = indices[Array(first.utf8)], entries[index].wrapper.isRegularFile {
            planned[index] = true
            order.append(index)
        }
        for index in entries.indices where !planned[index] {
            let wrapper = entries[index].wrapper
            if wrapper.isDirectory, implied.contains(entries[index].key), !(wrapper.fileWrappers ?? [:]).isEmpty { continue }
            order.append(index)
        }
        return order
    }

    private static func kind(of wrapper: FileWrapper) -> FileKind {
        wrapper.isDirectory ? .directory : wrapper.isSymbolicLink ? .symbolicLink : .regularFile
    }

    /// `original` (a central record) for a copy of its member at `offset`:
    /// sizes and offset in a zip64 field where they reach `thresholds`, the
    /// other extra fields kept.
    static func centralRecord(_ original: [UInt8], offset: UInt64, thresholds: Zip64Thresholds) -> [UInt8] {
        // Decoded and resolved when the zip was read.
        var record = ZipCentralRecord(decoding: LittleEndianBytes(bytes: original))!
        let fields = ZipExtraFields(record.extra)
        let (size, compressedSize, _) = record.sizesAndOffset(fields)!
        var large: [UInt64] = []
        func field(_ value: UInt64) -> UInt32 {
            guard value >= thresholds.bytes else { return UInt32(value) }
            large.append(value)
            return .max
        }
        record.size = field(size)
        record.compressedSize = field(compressedSize)
        record.localHeaderOffset = field(offset)
        var extra = ZipBytes()
        if !large.isEmpty { extra.bytes(ZipExtraFields.zip64(large)) }
        for (id, data) in fields.fields where id != ZipExtraFields.zip64 {
            extra.u16(UInt16(id), UInt16(data.count))
            extra.bytes(data)
        }
        record.extra = extra.bytes[...]
        record.diskStart = 0
        if !large.isEmpty, record.versionNeeded < 45 {
            record.versionNeeded = 45
            record.versionMadeBy = record.versionMadeBy & 0xFF00 | max(record.versionMadeBy & 0xFF, 45)
        }
        return record.encoded()
    }

    /// Points the regular files of the tree just written at their members
    /// in the new zip, so that they read from it, within the limits the
    /// tree was read with (``readLimits(of:)``), and a later save copies
    /// them as stored; what they hold in memory stays. Only when the zip at
    /// `url` is still the one written (`identity`); otherwise, and when it
    /// cannot be read, they keep their sources, which say "changed" if the
    /// zip they read from is gone.
    static func rebind(_ root: FileWrapper, toZipAt url: URL, identity: FileIdentity) {
        rebind(entries(of: root), toZipAt: url, identity: identity)
    }

    private static func rebind(_ entries: [TreeEntry], toZipAt url: URL, identity: FileIdentity) {
        let limits = readLimits(of: entries)
        // The zip just written holds what the tree held: members that were
        // read within the limits, and the caller's own, which may exceed them.
        let checks = ArchiveReadLimits(maxEntries: .max, maxBytes: .max, maxRatio: .infinity, ratioGraceBytes: .max, maxPathLength: .max,
                                       maxNameLength: .max, maxDepth: .max, maxLinkLength: .max, maxMemory: limits.maxMemory)
        guard let index = try? ZipContainerIndex(path: url.path, name: url.relativePath, limits: limits, checks: checks),
              index.archive.identity == identity
        else { return }
        var written: [[UInt8]: ZipMemberSource] = [:]
        var pending = [(index.root, [UInt8]())]
        while let (directory, prefix) = pending.popLast() {
            for (key, child) in directory.fileWrappers ?? [:] {
                let path = prefix.isEmpty ? Array(key.utf8) : prefix + [UInt8(ascii: "/")] + Array(key.utf8)
                if child.isDirectory { pending.append((child, path)) }
                if let source = child.regularFileSource as? ZipMemberSource { written[path] = source }
            }
        }
        for entry in entries where entry.wrapper.isRegularFile {
            guard let source = written[entry.key] else { continue }
            entry.wrapper.replaceRegularFileSource(with: source.with(attributes: entry.wrapper.attributes))
        }
    }

    /// The limits the regular files of `entries` were read from zips with,
    /// each the tightest of them; ``ZipContainer``'s default when none was.
    private static func readLimits(of entries: [TreeEntry]) -> ArchiveReadLimits {
        var archives: [ObjectIdentifier: ArchiveReadLimits] = [:]
        for entry in entries {
            if let member = entry.wrapper.regularFileSource as? ZipMemberSource { archives[ObjectIdentifier(member.archive)] = member.archive.limits }
        }
        guard var limits = archives.values.first else { return .unpacking }
        for other in archives.values {
            limits.maxEntries = min(limits.maxEntries, other.maxEntries)
            limits.maxBytes = min(limits.maxBytes, other.maxBytes)
            limits.maxRatio = min(limits.maxRatio, other.maxRatio)
            limits.ratioGraceBytes = min(limits.ratioGraceBytes, other.ratioGraceBytes)
            limits.maxPathLength = min(limits.maxPathLength, other.maxPathLength)
            limits.maxNameLength = min(limits.maxNameLength, other.maxNameLength)
            limits.maxDepth = min(limits.maxDepth, other.maxDepth)
            limits.maxLinkLength = min(limits.maxLinkLength, other.maxLinkLength)
            limits.maxMemory = min(limits.maxMemory, other.maxMemory)
        }
        return limits
    }
}

/// Members copied as stored that lie one after the other in the zip they
/// come from, as untouched members do: copied together, in one
/// `copy_file_range` run, when the zip written needs its end (before the
/// next bytes written, the central directory at the latest); the zip
/// writer meanwhile counts their length
/// (``ZipWriter/writeCopiedMember(length:centralRecord:copy:)``).
///
/// The kernel copies a run a quarter faster when the offsets it writes at
/// begin on a 64 KiB boundary, where the page cache keeps whole large
/// folios (on 6.18: 0.34 s for 1 GiB against 0.42 s from a 4 KiB boundary
/// and 0.46 s from anywhere; docs/performance.md): the bytes up to the
/// first such boundary go through memory, the rest with `copy_file_range`
/// in pieces that keep to the boundaries.
private final class CopyRun {
    /// The boundary the kernel's copies begin on.
    static let boundary = 64 << 10

    private let destination: CInt
    /// The zip written, as errors name it.
    private let name: String
    private let writeback: WritebackStarter?
    /// The run so far: where in which zip it begins, where it goes in the
    /// zip written, its length, and the last member in it, whose entry an
    /// error names.
    private var run: (fd: CInt, start: Int64, target: UInt64, length: Int, member: ZipMemberSource, entry: String)?
    /// Where the bytes before a boundary pass, made on first use.
    private var head: UnsafeMutableRawBufferPointer?

    init(to destination: CInt, named name: String, writeback: WritebackStarter?) {
        self.destination = destination
        self.name = name
        self.writeback = writeback
    }

    deinit {
        head?.deallocate()
    }

    /// Adds the `length` bytes at `offset` of `fd` (the zip of `member`,
    /// which `entry` names in the tree), which go at `target` in the zip
    /// written, to the run, or begins another.
    func add(_ length: Int, from fd: CInt, at offset: Int64, to target: UInt64, of member: ZipMemberSource, entry: String) throws {
        if let current = run, current.fd == fd, current.start + Int64(current.length) == offset {
            run = (fd, current.start, current.target, current.length + length, member, entry)
            return
        }
        try flush()
        run = (fd, offset, target, length, member, entry)
    }

    /// Copies the run, if any, to the end of the zip written: the bytes
    /// before the first ``boundary`` through memory, then a piece at a time
    /// so that its writeback starts while the rest is copied.
    func flush() throws {
        guard let (fd, start, target, length, member, entry) = run else { return }
        run = nil
        let unaligned = min(length, Int((UInt64(Self.boundary) - target % UInt64(Self.boundary)) % UInt64(Self.boundary)))
        if unaligned > 0 {
            let buffer = head ?? .allocate(byteCount: Self.boundary, alignment: 16)
            head = buffer
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<unaligned])
            try ArchiveError.io(archive: name, entry: entry) {
                try member.archive.read(fd, into: bytes, at: start, member: member.entry)
                try Syscall.writeAll(UnsafeRawBufferPointer(bytes), to: destination, path: { name })
            }
            writeback?.wrote(unaligned)
        }
        var copied = unaligned
        while copied < length {
            let piece = min(length - copied, WritebackStarter.archiveStride)
            try ArchiveError.io(archive: name, entry: entry) {
                guard try Syscall.copy(piece, from: fd, at: start + Int64(copied), to: destination, path: { member.archive.path }) == piece else {
                    throw member.archive.damage(member: member.entry, "the archive ends inside the member")
                }
            }
            copied += piece
            writeback?.wrote(piece)
        }
    }
}

/// The zips that members are copied from, each opened once (and checked
/// unchanged, ``ZipArchiveFile/open()``) for a save.
private struct OpenSources {
    private var open: [ObjectIdentifier: (archive: ZipArchiveFile, fd: CInt)] = [:]

    /// Where `member` is stored and how many bytes it takes with its local
    /// header and data descriptor; nil when its data descriptor cannot be
    /// told apart (the member is then written anew from its contents).
    mutating func copy(of member: ZipMemberSource) throws(FileWrapperError) -> (fd: CInt, length: Int)? {
        let archive = member.archive
        let fd: CInt
        if let known = open[ObjectIdentifier(archive)] {
            fd = known.fd
        } else {
            fd = try archive.open()
            open[ObjectIdentifier(archive)] = (archive, fd)
        }
        let (start, header) = try member.dataStart(in: fd)
        var length = start - member.localHeaderOffset + member.compressedSize
        if header.hasDataDescriptor {
            guard let descriptor = try descriptorLength(of: member, at: start + member.compressedSize, in: fd, header: header) else { return nil }
            length += Int64(descriptor)
        }
        return (fd, Int(length))
    }

    /// The length of the data descriptor at `offset` (APPNOTE 4.3.9: a
    /// signature or not, 8-byte sizes after a local zip64 field), told by
    /// the CRC it must hold; nil when it holds another.
    private func descriptorLength(
        of member: ZipMemberSource, at offset: Int64, in fd: CInt, header: ZipLocalHeader
    ) throws(FileWrapperError) -> Int? {
        let zip64 = !ZipExtraFields(header.extra).all(ZipExtraFields.zip64).isEmpty
        let withSignature = (zip64 ? 24 : 16)
        let available = Int(min(Int64(withSignature), member.archive.identity.size - offset))
        guard available >= withSignature - 4 else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: available, alignment: 8)
        defer { buffer.deallocate() }
        try member.archive.read(fd, into: buffer, at: offset, member: member.entry)
        let bytes = LittleEndianBytes(bytes: Array(buffer))
        if available >= 8, bytes.u32(0) == ZipDataDescriptor.signature, bytes.u32(4) == member.crc, available == withSignature {
            return withSignature
        }
        return bytes.u32(0) == member.crc ? withSignature - 4 : nil
    }

    /// ``copy(of:)``, or nil to write the member from its wrapper's bytes
    /// when the zip cannot be copied from (replaced, gone) but they are in
    /// memory; errors name `archive` (the zip written) and `entry`.
    mutating func copy(of member: ZipMemberSource, orFromMemory wrapper: FileWrapper, archive: String, entry: String) throws -> (fd: CInt, length: Int)? {
        do {
            return try copy(of: member)
        } catch where wrapper.isRegularFileContentsLoaded {
            return nil
        } catch {
            throw ArchiveError(error, archive: archive, entry: entry)
        }
    }

    /// Throws unless every zip copied from is still the file it was.
    func checkUnchanged() throws(FileWrapperError) {
        for (archive, fd) in open.values { try archive.checkUnchanged(fd) }
    }

    func closeAll() {
        for (_, fd) in open.values { Syscall.close(fd) }
    }
}
