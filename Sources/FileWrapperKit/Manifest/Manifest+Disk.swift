import Foundation
import Glibc

extension Manifest {
    /// The manifest of the file, symbolic link or directory tree at `url`
    /// (a final symbolic link is not followed). Names are read as bytes,
    /// so any name Linux allows is kept. With `hashingContents`, every
    /// regular file is read and hashed, on all cores; `progress` counts
    /// the entries found and the bytes hashed.
    ///
    /// - Parameters:
    ///   - url: The file, link or directory.
    ///   - hashingContents: Whether to hash every regular file.
    ///   - progress: Counts entries and bytes as they are read; nil for none.
    /// - Throws: ``FileWrapperError`` naming the path and the call when a
    ///   system call fails, or when a file changes while it is hashed.
    public init(contentsOf url: URL, hashingContents: Bool = true, progress: ManifestProgress? = nil) throws {
        self = try DiskManifestReader(root: url.path, name: url.relativePath, hashingContents: hashingContents, progress: progress).read()
    }

    /// The manifest of the tree at `url`, as ``init(contentsOf:hashingContents:progress:)``
    /// makes it, but for a folder or file that cannot be read (`EACCES`,
    /// `EPERM`, `EIO`): it is listed from what `lstat` says, named in
    /// ``unreadable`` with its error, and the walk goes on. Such a
    /// manifest describes part of the tree: it has no tree digest for
    /// those entries' folders, and prints as a partial listing.
    package init(listing url: URL, hashingContents: Bool, progress: ManifestProgress? = nil) throws {
        self = try DiskManifestReader(
            root: url.path, name: url.relativePath, hashingContents: hashingContents, progress: progress, keepsUnreadable: true
        ).read()
    }
}

/// Reads a tree on disk into a ``ManifestBuilder``: a directory through
/// ``DiskTreeWalk``, a single file or symbolic link here.
struct DiskManifestReader: Sendable {
    let root: String
    /// The root as the caller gave it, for ``Manifest/source``.
    let name: String
    let hashingContents: Bool
    let progress: ManifestProgress?
    /// Whether an entry that cannot be read is marked and passed over
    /// instead of failing the whole read.
    var keepsUnreadable = false

    func read() throws -> Manifest {
        let info = try Syscall.status(of: root, in: AT_FDCWD, path: { root })
        let entries: [ManifestEntry]
        var unreadable: [UnreadableEntry] = []
        switch FileKind(mode: info.st_mode) {
        case .directory:
            let fd = try Syscall.open(root, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { root })
            (entries, unreadable) = try DiskTreeWalk(reader: self).entries(below: fd)
        case .symbolicLink:
            var entry = Self.entry(path: [], info: info)
            entry.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: Array(root.utf8), in: AT_FDCWD, path: { root })
            entries = [entry]
        case .regularFile:
            var entry = Self.entry(path: [], info: info)
            entry.extendedAttributes = try Self.bytes(ExtendedAttributes.readNamed(.path(root), displayPath: { root }))
            if hashingContents {
                entry.contentDigest = try hashRoot(as: FileIdentity(info))
            }
            entries = [entry]
        case nil:
            entries = [Self.entry(path: [], info: info)]
        }
        var builder = ManifestBuilder(source: Manifest.Source(kind: info.st_mode & S_IFMT == S_IFDIR ? .bundle : .file, name: name))
        // Handed over, not shared: the builder sorts the entries in place.
        try builder.add(contentsOf: consume entries)
        let manifest = try (consume builder).finish()
        return unreadable.isEmpty ? manifest : manifest.marking(unreadable: unreadable)
    }

    /// The digest of the root when it is a regular file, which must still be
    /// the file `lstat` saw.
    private func hashRoot(as identity: FileIdentity) throws(FileWrapperError) -> SHA256Digest {
        let fd = try Syscall.open(root, in: AT_FDCWD, flags: O_RDONLY | O_NOFOLLOW, path: { root })
        defer { Syscall.close(fd) }
        let info = try Syscall.status(of: fd, path: { root })
        guard identity.isSameInode(as: info), Int64(info.st_size) == identity.size else {
            throw FileWrapperError(.changedOnDisk, path: root, detail: "the file was replaced or changed size while the tree was read")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentHashing.blockSize, alignment: 64)
        defer { buffer.deallocate() }
        return try ContentHashing.digest(of: fd, size: identity.size, buffer: buffer, progress: progress, path: { root })
    }

    /// An entry from what `lstat` or `fstat` says.
    static func entry(path: [UInt8], info: stat) -> ManifestEntry {
        let kind: ManifestEntry.Kind = switch FileKind(mode: info.st_mode) {
        case .regularFile: .file
        case .directory: .directory
        case .symbolicLink: .symlink
        case nil: .other
        }
        return ManifestEntry(
            path: path, kind: kind, size: kind == .file ? Int64(info.st_size) : nil,
            permissions: UInt16(info.st_mode & 0o7777), modified: FileTimestamp(info.st_mtim),
            owner: FileOwner(userID: info.st_uid, groupID: info.st_gid))
    }

    /// Extended attributes as a manifest keeps them (none costs no allocation).
    static func bytes(_ attributes: [(name: [UInt8], value: Data)]) -> [ExtendedAttributeName: [UInt8]] {
        var named: [ExtendedAttributeName: [UInt8]] = [:]
        for (name, value) in attributes { named[ExtendedAttributeName(name)] = Array(value) }
        return named
    }
}
