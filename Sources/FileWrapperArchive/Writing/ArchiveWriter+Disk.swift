import FileWrapperKit
import Foundation

extension ArchiveWriter {
    /// Packs what is on disk at `source` into the archive at `url`: a
    /// directory's contents become the archive's top-level entries (as
    /// document containers such as EPUB expect), a file or symlink becomes
    /// the one entry. The archive is replaced whole or not at all, as
    /// ``write(_:to:options:)`` replaces it.
    ///
    /// The tree is walked as it is written, never held: one thread walks it
    /// and reads small files ahead while this one writes the archive
    /// (``DiskTreeStream``), so memory stays flat whatever the number and
    /// size of the files. What the walk refuses, `FileWrapper(url:)` refuses
    /// too, with the same errors.
    public static func write(contentsOf source: URL, to url: URL, options: ArchiveWriteOptions) throws {
        let clock = EntryClock(reproducible: options.reproducible)
        try writeReplacing(url, options: options) { writer in
            try DiskTreeStream.walk(root: source.path, firstName: options.firstStoredEntry) { stream in
                while let entry = try stream.next() {
                    let header = ArchiveEntryHeader(
                        path: entry.path, kind: entry.kind.archiveKind,
                        permissions: entry.kind == .symbolicLink ? 0o777 : entry.permissions, size: entry.size,
                        modified: clock.time(for: entry.modified),
                        owner: options.reproducible ? nil : entry.owner, linkTarget: entry.linkTarget)
                    try writer.writeHeader(header, stored: entry.path == options.firstStoredEntry)
                    try entry.contents?.forEachBlock { try writer.writeData($0, entry: entry.path) }
                }
            }
        }
    }
}

extension DiskTreeEntry.Kind {
    var archiveKind: ArchiveEntryHeader.Kind {
        switch self {
        case .regularFile: .regularFile
        case .directory: .directory
        case .symbolicLink: .symbolicLink
        }
    }
}
