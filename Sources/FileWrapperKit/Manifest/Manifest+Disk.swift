import Foundation
import Glibc

extension Manifest {
    /// The manifest of the file, symbolic link or directory tree at `url`
    /// (a final symbolic link is not followed). Names are read as bytes,
    /// so any name Linux allows is kept. With `hashingContents`, every
    /// regular file is read and hashed, on all cores; `progress` counts
    /// the entries found and the bytes hashed.
    public init(contentsOf url: URL, hashingContents: Bool = true, progress: ManifestProgress? = nil) throws {
        self = try DiskManifestReader(root: url.path, name: url.relativePath, hashingContents: hashingContents, progress: progress).read()
    }
}

/// Walks a tree on disk through directory descriptors, without recursion,
/// into a ``ManifestBuilder``; then hashes the files it found.
struct DiskManifestReader {
    let root: String
    /// The root as the caller gave it, for ``Manifest/source``.
    let name: String
    let hashingContents: Bool
    let progress: ManifestProgress?

    /// A regular file found by the walk, to hash.
    private struct PendingFile {
        var entryIndex: Int
        var path: [UInt8]
        var identity: FileIdentity
    }

    func read() throws -> Manifest {
        let info = try Syscall.status(of: root, in: AT_FDCWD, path: { root })
        var entries: [ManifestEntry] = []
        var files: [PendingFile] = []
        switch InodeKind(mode: info.st_mode) {
        case .directory:
            let fd = try Syscall.open(root, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { root })
            let cursor = try DirectoryCursor(root: fd, path: root)
            var entry = Self.entry(path: [], info: info)
            entry.extendedAttributes = try Self.bytes(ExtendedAttributes.read(.descriptor(cursor.current), displayPath: { root }))
            entries.append(entry)
            try walk(cursor, into: &entries, files: &files)
        case .symbolicLink:
            var entry = Self.entry(path: [], info: info)
            entry.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: Array(root.utf8), in: AT_FDCWD, path: { root })
            entries.append(entry)
        case .regularFile, .other:
            var entry = Self.entry(path: [], info: info)
            if entry.kind == .file {
                entry.extendedAttributes = try Self.bytes(ExtendedAttributes.read(.path(root), displayPath: { root }))
                files.append(PendingFile(entryIndex: 0, path: [], identity: FileIdentity(info)))
            }
            entries.append(entry)
        }
        if hashingContents {
            let digests = try ContentHashing.hash(files.map { file in
                ContentHashing.Job(path: fullPath(file.path), identity: file.identity)
            }, progress: progress)
            for (file, digest) in zip(files, digests) {
                entries[file.entryIndex].contentDigest = digest
            }
        }
        var builder = ManifestBuilder(source: Manifest.Source(kind: info.st_mode & S_IFMT == S_IFDIR ? .bundle : .file, name: name))
        for entry in entries {
            try builder.add(entry)
        }
        return try builder.finish()
    }

    /// The path to open for an entry's path below the root.
    private func fullPath(_ relative: [UInt8]) -> [UInt8] {
        relative.isEmpty ? Array(root.utf8) : Array(root.utf8) + [UInt8(ascii: "/")] + relative
    }

    /// Reads every entry below the cursor's directory, depth first.
    private func walk(_ cursor: DirectoryCursor, into entries: inout [ManifestEntry], files: inout [PendingFile]) throws {
        // Each frame: the directory's path below the root and its
        // subdirectories still to enter.
        var frames: [(path: [UInt8], subdirectories: [[UInt8]])] = []
        frames.append(([], try readDirectory(cursor, path: [], into: &entries, files: &files)))
        while !frames.isEmpty {
            guard let name = frames[frames.count - 1].subdirectories.popLast() else {
                frames.removeLast()
                if !frames.isEmpty { try cursor.leave() }
                continue
            }
            let path = Self.join(frames[frames.count - 1].path, name)
            let fd = try Syscall.open(bytes: name, in: cursor.current, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { cursor.path(bytes: name) })
            try cursor.enter(fd, name: name)
            frames.append((path, try readDirectory(cursor, path: path, into: &entries, files: &files)))
        }
    }

    /// Adds the entries of the directory at the cursor and returns the
    /// names of its subdirectories.
    private func readDirectory(
        _ cursor: DirectoryCursor, path directoryPath: [UInt8], into entries: inout [ManifestEntry], files: inout [PendingFile]
    ) throws -> [[UInt8]] {
        let fd = cursor.current
        let countBefore = entries.count
        var subdirectories: [[UInt8]] = []
        for name in try Syscall.names(inDirectory: fd, path: { cursor.path() }) {
            let info = try Syscall.status(ofBytes: name, in: fd, path: { cursor.path(bytes: name) })
            var entry = Self.entry(path: Self.join(directoryPath, name), info: info)
            switch entry.kind {
            case .symlink:
                entry.linkTarget = try Syscall.symbolicLinkTarget(ofBytes: name, in: fd, path: { cursor.path(bytes: name) })
            case .file, .directory:
                entry.extendedAttributes = try Self.bytes(ExtendedAttributes.read(bytes: name, in: fd, path: { cursor.path(bytes: name) }))
            case .hardLink, .other:
                break
            }
            if entry.kind == .directory {
                subdirectories.append(name)
            } else if entry.kind == .file {
                files.append(PendingFile(entryIndex: entries.count, path: entry.path, identity: FileIdentity(info)))
            }
            entries.append(entry)
        }
        progress?.count(entries: entries.count - countBefore)
        return subdirectories
    }

    /// An entry from what `lstat` says.
    private static func entry(path: [UInt8], info: stat) -> ManifestEntry {
        let kind: ManifestEntry.Kind = switch InodeKind(mode: info.st_mode) {
        case .regularFile: .file
        case .directory: .directory
        case .symbolicLink: .symlink
        case .other: .other
        }
        return ManifestEntry(
            path: path, kind: kind, size: kind == .file ? Int64(info.st_size) : nil,
            permissions: UInt16(info.st_mode & 0o7777), modified: FileTimestamp(info.st_mtim),
            owner: FileOwner(userID: info.st_uid, groupID: info.st_gid))
    }

    private static func join(_ directory: [UInt8], _ name: [UInt8]) -> [UInt8] {
        directory.isEmpty ? name : directory + [UInt8(ascii: "/")] + name
    }

    private static func bytes(_ attributes: [String: Data]) -> [String: [UInt8]] {
        attributes.mapValues { Array($0) }
    }
}
