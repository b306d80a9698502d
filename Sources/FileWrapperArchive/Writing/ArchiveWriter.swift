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
    /// one entry named by its `preferredFilename` (or `filename`). The archive
    /// is built under a temporary name beside `url` and renamed over it only
    /// when complete.
    public static func write(_ wrapper: FileWrapper, to url: URL, options: ArchiveWriteOptions) throws {
        let path = url.path
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".fwk-pack-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ArchiveError(.io, archive: path, message: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        do {
            defer { Glibc.close(fd) }
            let handle = try ArchiveWriteHandle(options: options, name: path)
            try handle.open(fd: fd)
            try writeEntries(of: wrapper, rootName: nil, to: handle, options: options)
            try handle.close()
            guard fsync(fd) == 0, rename(temporary, path) == 0 else {
                throw ArchiveError(.io, archive: path, message: "cannot save the archive: \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes `wrapper` as an archive through `sink`, which receives the
    /// archive's bytes in order (any byte sink: a socket, a pipe, a hash).
    public static func write(
        _ wrapper: FileWrapper, options: ArchiveWriteOptions, name: String = "archive",
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try write(wrapper, rootName: nil, options: options, name: name, to: sink)
    }

    /// The archive of `wrapper` in memory.
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
        let handle = try ArchiveWriteHandle(options: options, name: name)
        try handle.open(sink: sink)
        try writeEntries(of: wrapper, rootName: rootName, to: handle, options: options)
        try handle.close()
    }

    /// Walks the tree with an explicit stack and writes one entry per wrapper.
    private static func writeEntries(
        of root: FileWrapper, rootName: String?, to handle: ArchiveWriteHandle, options: ArchiveWriteOptions
    ) throws {
        let clock = EntryClock(reproducible: options.reproducible)
        var pending: [(path: String, wrapper: FileWrapper)]
        if let rootName {
            pending = [(rootName, root)]
        } else if root.isDirectory {
            pending = children(of: root, under: nil, firstStored: options.firstStoredEntry)
        } else {
            pending = [(root.preferredFilename ?? root.filename ?? "file", root)]
        }
        while let (path, wrapper) = pending.popLast() {
            var header = ArchiveWriteHandle.Header(
                path: path, kind: .regularFile, permissions: wrapper.attributes.permissions ?? 0o644, size: 0,
                modified: clock.time(for: wrapper.attributes.modificationDate),
                owner: options.reproducible ? nil : wrapper.attributes.owner, linkTarget: nil)
            if wrapper.isDirectory {
                header.kind = .directory
                header.permissions = wrapper.attributes.permissions ?? 0o755
                try handle.writeHeader(header)
                pending += children(of: wrapper, under: path, firstStored: nil)
            } else if wrapper.isSymbolicLink {
                header.kind = .symbolicLink
                header.permissions = 0o777
                header.linkTarget = wrapper.symbolicLinkDestinationBytes
                try handle.writeHeader(header)
            } else {
                header.size = wrapper.regularFileSize ?? 0
                try handle.writeHeader(header, stored: path == options.firstStoredEntry && rootName == nil)
                try wrapper.forEachContentsBlock { try handle.writeData($0, entry: path) }
            }
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

    init(reproducible: Bool) {
        let sourceDate = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(Int64.init)
        epoch = reproducible ? sourceDate.map { FileTimestamp(seconds: $0) } : nil
        fallback = reproducible ? (epoch ?? FileTimestamp(seconds: 0)) : FileTimestamp(Date())
    }

    func time(for date: FileTimestamp?) -> FileTimestamp {
        guard let date else { return fallback }
        if let epoch, date > epoch { return epoch }
        return date
    }
}
