import FileWrapperKit
import Foundation
import Glibc

extension ArchiveWriter {
    /// Packs what is on disk at `source` into the archive at `url`: a
    /// directory's contents become the archive's top-level entries (as
    /// document containers such as EPUB expect), a file or symlink becomes
    /// the one entry. The archive is replaced whole or not at all, as
    /// ``write(_:to:options:)`` replaces it. An archive written inside
    /// `source` never contains itself, its temporary or the archive it
    /// replaces (as bsdtar leaves out its own archive).
    ///
    /// The tree is walked as it is written, never held: one thread walks it
    /// and reads small files ahead while this one writes the archive
    /// (`DiskTreeStream`), so memory stays flat whatever the number and
    /// size of the files. What the walk refuses, `FileWrapper(url:)` refuses
    /// too, with the same errors.
    ///
    /// - Parameters:
    ///   - source: The file, link or directory to pack.
    ///   - url: The archive file.
    ///   - options: The format and how to write it.
    /// - Throws: `FileWrapperError` when the walk of `source` fails or
    ///   refuses a name; ``ArchiveError`` naming the archive and the entry
    ///   when libarchive refuses an entry, `url` is a directory, or writing
    ///   fails. `url` is left as it was.
    public static func write(contentsOf source: URL, to url: URL, options: ArchiveWriteOptions) throws {
        try write(contentsOf: source, to: url, options: options, progress: nil)
    }

    /// ``write(contentsOf:to:options:)``, counting into `progress` each
    /// entry written and the bytes of its contents, for a progress display.
    ///
    /// - Parameters:
    ///   - source: The file, link or directory to pack.
    ///   - url: The archive file.
    ///   - options: The format and how to write it.
    ///   - progress: Counts entries and bytes written; nil for none.
    /// - Throws: As ``write(contentsOf:to:options:)``.
    public static func write(contentsOf source: URL, to url: URL, options: ArchiveWriteOptions, progress: ManifestProgress?) throws {
        try writeReplacing(url, options: options) { writer, ownFiles in
            try writeEntries(contentsOf: source, to: writer, options: options, excluding: ownFiles, progress: progress)
        }
    }

    /// Packs what is on disk at `source` as ``write(contentsOf:to:options:)``
    /// does, handing the archive's bytes in order to `sink` (standard
    /// output, a pipe, a device); `name` names the archive in errors.
    ///
    /// - Parameters:
    ///   - source: The file, link or directory to pack.
    ///   - options: The format and how to write it.
    ///   - name: The archive's name in errors.
    ///   - progress: Counts entries and bytes written; nil for none.
    ///   - sink: Takes the archive's bytes in order.
    /// - Throws: `FileWrapperError` when the walk of `source` fails or
    ///   refuses a name; ``ArchiveError`` naming the archive and the entry
    ///   when libarchive refuses an entry; whatever `sink` throws.
    public static func write(
        contentsOf source: URL, options: ArchiveWriteOptions, name: String, progress: ManifestProgress? = nil,
        to sink: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let writer = try options.makeEntryWriter(name: name, sink: sink)
        try writeEntries(contentsOf: source, to: writer, options: options, progress: progress)
        try writer.close()
    }

    /// Walks `source` and writes one entry for each item met but the files
    /// `excluded`, after the root's own entry where the format records it.
    private static func writeEntries(
        contentsOf source: URL, to writer: any ArchiveEntryWriter, options: ArchiveWriteOptions,
        excluding excluded: [DiskTreeStream.Identity] = [], progress: ManifestProgress?
    ) throws {
        let clock = EntryClock(options)
        if options.format.recordsRoot {
            try writeRoot(of: source, to: writer, clock: clock, options: options)
        }
        try DiskTreeStream.walk(root: source.path, firstName: options.firstStoredEntry, excluding: excluded) { stream in
            while let entry = try stream.next() {
                let header = ArchiveEntryHeader(
                    path: entry.path, kind: entry.kind,
                    permissions: entry.kind == .symbolicLink ? 0o777 : entry.permissions, size: entry.size,
                    modified: clock.time(for: entry.modified),
                    owner: options.reproducible ? nil : entry.owner, linkTarget: entry.linkTarget,
                    samples: entry.contents.map { contents in { try contents.samples(at: $0, length: $1) } })
                try writer.writeHeader(header, stored: entry.path == options.firstStoredEntry)
                try entry.contents?.forEachBlock { block in
                    try writer.writeData(block, entry: entry.path)
                    progress?.count(bytes: Int64(block.count))
                }
                progress?.count(entries: 1)
            }
        }
    }
}

extension ArchiveWriter {
    /// Writes the root's own entry (``ArchiveFormat/recordsRoot``) when
    /// `source` is a directory: its mode, time and owner, as `lstat` gives
    /// them (`fstatat` without following a symlink), so that an unpack
    /// makes the root as it was.
    private static func writeRoot(of source: URL, to writer: any ArchiveEntryWriter, clock: EntryClock, options: ArchiveWriteOptions) throws {
        // A source that cannot be read is the walk's to report, as `FileWrapper(url:)` reports it.
        guard let info = try? Syscall.status(of: source.path, in: AT_FDCWD, path: { source.path }),
              info.st_mode & S_IFMT == S_IFDIR
        else { return }
        try writer.writeHeader(ArchiveEntryHeader(
            path: ".", kind: .directory, permissions: UInt16(info.st_mode & 0o7777), size: 0,
            modified: clock.time(for: FileTimestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec))),
            owner: options.reproducible ? nil : FileOwner(userID: info.st_uid, groupID: info.st_gid), linkTarget: nil), stored: false)
    }
}
