import FileWrapperKit
import Foundation
import Glibc

/// Writes a FileWrapper tree as an archive through libarchive, streaming:
/// file contents go through in blocks (lazily read files straight from
/// disk), so memory does not grow with the archive's size.
///
/// Entries are written depth first, each directory's entries sorted by the
/// bytes of their names, a directory before what it holds.
public enum ArchiveWriter {
    /// Writes `wrapper` to the file at `url`. A directory wrapper's children
    /// become the archive's top-level entries; a file or symlink wrapper is
    /// one entry named by its `preferredFilename` (or `filename`).
    ///
    /// The archive is written under a temporary name beside `url`, flushed
    /// to disk, and swapped into place only when complete, so an existing
    /// archive is replaced whole or not at all, and keeps its permission
    /// bits; temporaries that a killed process left are removed on the next
    /// write. A directory at `url` is refused, never replaced.
    ///
    /// - Parameters:
    ///   - wrapper: The tree to write.
    ///   - url: The archive file.
    ///   - options: The format and how to write it.
    /// - Throws: ``ArchiveError`` naming the archive and the entry when
    ///   libarchive refuses an entry, `url` is a directory, or writing fails
    ///   (``ArchiveError/Code/io``, its cause the `FileWrapperError`);
    ///   `FileWrapperError` when a file read lazily cannot be read. `url` is
    ///   left as it was.
    public static func write(_ wrapper: FileWrapper, to url: URL, options: ArchiveWriteOptions) throws {
        try writeReplacing(url, options: options) { writer, _ in
            try writeEntries(of: wrapper, rootName: nil, to: writer, options: options)
        }
    }

    /// Writes the archive at `url` under a temporary name beside it with
    /// what `body` gives the writer and swaps it into place, both on the
    /// disk before it returns (``Durability/synced``). `body` is told the
    /// files it must not pack: the temporary, and the archive it replaces.
    static func writeReplacing(
        _ url: URL, options: ArchiveWriteOptions, _ body: (any ArchiveEntryWriter, _ ownFiles: [DiskTreeStream.Identity]) throws -> Void
    ) throws {
        let archive = url.relativePath
        let name = url.lastPathComponent
        let parentPath = url.deletingLastPathComponent().path
        let parent = try ArchiveError.io(archive: archive) {
            try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        }
        defer { Syscall.close(parent) }
        let existing = Syscall.statusIfPresent(of: name, in: parent)
        if let existing, existing.st_mode & S_IFMT == S_IFDIR {
            throw ArchiveError(.io, archive: archive, message: "is a directory; an archive is written only over a file")
        }
        let replacement = PendingReplacement(of: name, in: parent, parentPath: parentPath)
        let fd = try ArchiveError.io(archive: archive) { try replacement.createFile() }
        do {
            defer { Syscall.close(fd) }
            var ownFiles: [DiskTreeStream.Identity] = []
            if let made = try? Syscall.status(of: fd, path: { archive }) { ownFiles.append(DiskTreeStream.Identity(made)) }
            if let existing, existing.st_mode & S_IFMT == S_IFREG { ownFiles.append(DiskTreeStream.Identity(existing)) }
            // Through a sink like any other, so that a failed write (a full
            // disk) is an error naming the file, the call and the errno, where
            // libarchive's own descriptor writer says only "Write error".
            let writeback = options.durability == .synced ? WritebackStarter(fd: fd) : nil
            let writer = try options.makeEntryWriter(name: archive) { bytes in
                try ArchiveError.io(archive: archive) { try Syscall.writeAll(bytes, to: fd, path: { archive }) }
                writeback?.wrote(bytes.count)
            }
            try body(writer, ownFiles)
            try writer.close()
            try ArchiveError.io(archive: archive) { try replacement.commit(options.durability, file: fd) }
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// Writes `wrapper` as an archive through `sink`, which receives the
    /// archive's bytes in order (any byte sink: a socket, a pipe, a hash).
    ///
    /// - Parameters:
    ///   - wrapper: The tree to write.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    ///   - sink: Takes the archive's bytes in order.
    /// - Throws: ``ArchiveError`` naming the archive and the entry when
    ///   libarchive refuses an entry; `FileWrapperError` when a file read
    ///   lazily cannot be read; whatever `sink` throws, with the entry named
    ///   when it is an ``ArchiveError``.
    public static func write(
        _ wrapper: FileWrapper, options: ArchiveWriteOptions, name: String = "archive",
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try write(wrapper, rootName: nil, options: options, name: name, to: sink)
    }

    /// The archive of `wrapper` in memory.
    ///
    /// - Parameters:
    ///   - wrapper: The tree to write.
    ///   - options: The format and how to write it.
    /// - Returns: The archive's bytes.
    /// - Throws: ``ArchiveError`` when libarchive refuses an entry;
    ///   `FileWrapperError` when a file read lazily cannot be read.
    public static func data(for wrapper: FileWrapper, options: ArchiveWriteOptions) throws -> Data {
        var data = Data()
        try write(wrapper, options: options) { data.append(contentsOf: $0) }
        return data
    }

    /// Writes through `sink`; with `rootName`, the wrapper itself is the one
    /// top-level entry under that name instead of its children.
    static func write(
        _ wrapper: FileWrapper, rootName: String?, options: ArchiveWriteOptions, name: String,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let writer = try options.makeEntryWriter(name: name, sink: sink)
        try writeEntries(of: wrapper, rootName: rootName, to: writer, options: options)
        try writer.close()
    }

    /// Walks the tree with an explicit stack and writes one entry per wrapper.
    private static func writeEntries(
        of root: FileWrapper, rootName: String?, to writer: any ArchiveEntryWriter, options: ArchiveWriteOptions
    ) throws {
        let clock = EntryClock(options)
        var pending: [(path: String, wrapper: FileWrapper)]
        if let rootName {
            pending = [(rootName, root)]
        } else if root.isDirectory {
            pending = children(of: root, under: nil, firstStored: options.firstStoredEntry)
            // The root's own mode and time, where the format keeps them and the wrapper has them (one read from disk).
            if options.format.recordsRoot, root.attributes.permissions != nil || root.attributes.modificationDate != nil {
                try writer.writeHeader(ArchiveEntryHeader(
                    path: ".", kind: .directory, permissions: root.attributes.permissions ?? 0o755, size: 0,
                    modified: clock.time(for: root.attributes.modificationDate),
                    owner: options.reproducible ? nil : root.attributes.owner, linkTarget: nil), stored: false)
            }
        } else {
            pending = [(root.preferredFilename ?? root.filename ?? "file", root)]
        }
        while let (path, wrapper) = pending.popLast() {
            try writeEntry(wrapper, path: path, to: writer, clock: clock, options: options,
                           stored: path == options.firstStoredEntry && rootName == nil)
            if wrapper.isDirectory { pending += children(of: wrapper, under: path, firstStored: nil) }
        }
    }

    /// Writes the entry of one wrapper (a directory's alone, not what it
    /// holds) at `path`; `stored` asks a zip to store a regular file plainly.
    static func writeEntry(
        _ wrapper: FileWrapper, path: String, to writer: any ArchiveEntryWriter, clock: EntryClock, options: ArchiveWriteOptions,
        stored: Bool
    ) throws {
        var header = ArchiveEntryHeader(
            path: path, kind: .regularFile, permissions: wrapper.attributes.permissions ?? 0o644, size: 0,
            modified: clock.time(for: wrapper.attributes.modificationDate),
            owner: options.reproducible ? nil : wrapper.attributes.owner, linkTarget: nil)
        if wrapper.isDirectory {
            header.kind = .directory
            header.permissions = wrapper.attributes.permissions ?? 0o755
            try writer.writeHeader(header, stored: false)
        } else if wrapper.isSymbolicLink {
            header.kind = .symbolicLink
            header.permissions = 0o777
            header.linkTarget = wrapper.symbolicLinkDestinationBytes
            try writer.writeHeader(header, stored: false)
        } else {
            header.size = wrapper.regularFileSize ?? 0
            header.samples = { try wrapper.contentsSamples(at: $0, length: $1) }
            try writer.writeHeader(header, stored: stored)
            try wrapper.forEachContentsBlock { try writer.writeData($0, entry: path) }
        }
    }

    /// A directory's children with their archive paths, in reverse order of
    /// name bytes so that popping yields them sorted; `firstStored` (a
    /// top-level name) comes out first.
    private static func children(
        of directory: FileWrapper, under prefix: String?, firstStored: String?
    ) -> [(path: String, wrapper: FileWrapper)] {
        var entries = (directory.fileWrappers ?? [:])
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { (path: (prefix.map { "\($0)/" } ?? "") + $0.key, wrapper: $0.value) }
        if let firstStored, let index = entries.firstIndex(where: { $0.path == firstStored }) {
            entries.insert(entries.remove(at: index), at: 0)
        }
        return entries.reversed()
    }
}

/// The modification time each entry gets: the wrapper's own, clamped to
/// `SOURCE_DATE_EPOCH` for reproducible archives; for a wrapper without
/// one, `SOURCE_DATE_EPOCH` (reproducible) or the time the archive started.
struct EntryClock {
    private let epoch: FileTimestamp?
    private let fallback: FileTimestamp

    init(_ options: ArchiveWriteOptions) {
        let sourceDate = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(Int64.init)
        epoch = options.reproducible ? sourceDate.map { FileTimestamp(seconds: $0) } : nil
        fallback = options.reproducible ? (epoch ?? FileTimestamp(seconds: 0)) : FileTimestamp(Date())
    }

    func time(for date: FileTimestamp?) -> FileTimestamp {
        guard let date else { return fallback }
        if let epoch, date > epoch { return epoch }
        return date
    }
}
