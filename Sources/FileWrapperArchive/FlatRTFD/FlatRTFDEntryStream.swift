import FileWrapperKit
import Glibc

/// A flat RTFD's wrappers as an archive read entry after entry, so that
/// listing, manifests, members and unpacking read it as they read any
/// archive (``ArchiveEntries``, `ArchiveManifestReader`, ``MemberContents``,
/// ``ArchiveUnpacker``, with the same checks and limits). A wrapper without
/// a directory info entry records no permissions or time; an unpack gives
/// it ours (0755 for a directory, 0644 for a file).
final class FlatRTFDEntryStream: ArchiveEntryStream {
    private let archive: FlatRTFDArchive
    /// The member whose header was given last; -1 before the first.
    private var index = -1
    /// How many bytes of its contents have been read.
    private var offset = 0

    init(_ archive: FlatRTFDArchive) {
        self.archive = archive
    }

    /// A stream for an unpack, which makes a directory: refused for a
    /// top-level file or link, which has no folder to unpack.
    ///
    /// - Throws: ``ArchiveError`` (``ArchiveError/Code/unsupportedEntry``) naming the blob.
    convenience init(unpacking archive: FlatRTFDArchive) throws {
        guard archive.members.first?.entry.kind == .directory else {
            throw ArchiveError(.unsupportedEntry, archive: archive.name,
                               message: "the flat RTFD holds a single file or link, not a folder, so there is nothing to unpack into a directory")
        }
        self.init(archive)
    }

    var name: String { archive.name }
    var formatName: String? { FlatRTFDArchive.formatName }
    var storedContents: (fd: CInt, offset: Int64)? { nil }
    /// The whole blob is read before the first entry.
    var archiveBytesRead: Int64 { Int64(archive.data.count) }

    func nextHeader() throws -> ArchiveReadHandle.Header? {
        index += 1
        offset = 0
        guard index < archive.members.count else { return nil }
        let entry = archive.members[index].entry
        let type: mode_t = switch entry.kind {
        case .directory: S_IFDIR
        case .symbolicLink: S_IFLNK
        default: S_IFREG
        }
        return ArchiveReadHandle.Header(
            path: entry.path, type: type, permissions: entry.permissions ?? (entry.kind == .directory ? 0o755 : 0o644),
            modified: (entry.modified?.seconds ?? 0, 0), owner: nil, symlinkTarget: entry.symbolicLinkTarget, hardlinkTarget: nil,
            isEncrypted: false, pathBytes: entry.pathBytes, hardlinkBytes: nil, size: entry.size, modifiedIsSet: entry.modified != nil,
            recordsPermissions: entry.permissions != nil)
    }

    func readData(into buffer: UnsafeMutableRawBufferPointer, entry: String) throws -> Int {
        guard archive.members.indices.contains(index) else { return 0 }
        let member = archive.members[index]
        return archive.withContents(of: member) { contents in
            let count = min(buffer.count, contents.count - offset)
            guard count > 0 else { return 0 }
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: contents[offset..<(offset + count)]))
            offset += count
            return count
        }
    }

    func skipData(entry: String) throws {
        guard archive.members.indices.contains(index) else { return }
        offset = archive.members[index].contents?.count ?? 0
    }
}
