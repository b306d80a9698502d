import Foundation
import Glibc

/// Writes a wrapper tree through directory descriptors (`mkdirat`,
/// `openat` with `O_NOFOLLOW` and `O_EXCL`, `symlinkat`, `futimens`), depth
/// first with an explicit stack, so that no symlink can redirect a write and
/// no depth can overflow the stack.
///
/// Given the previous revision of the tree, a regular file whose wrapper was
/// read from it and has not changed since is hard-linked from there instead
/// of written again (copied where a link is impossible).
struct TreeWriter {
    /// Where the tree will live once in place: the path recorded for lazily
    /// read contents after the save.
    let finalPath: String
    /// Ownership is applied only by a privileged process.
    private let appliesOwner = geteuid() == 0

    init(finalPath: String) {
        self.finalPath = finalPath
    }

    /// An item of the previous revision: `name` inside the directory `directory`.
    struct Original {
        let directory: CInt
        let name: String
    }

    /// What a successful write changes in the wrappers: applied by the
    /// caller only once the whole save has succeeded.
    struct Outcome {
        /// Each regular file and the file on disk that now holds its bytes.
        var files: [(wrapper: FileWrapper, file: DiskFile)] = []
        /// Each descendant and the name it was written under.
        var names: [(wrapper: FileWrapper, name: String)] = []
    }

    /// Writes `root` as `name` inside `parent`. On failure, removes what it
    /// created and rethrows. Errors name paths as they will be once in
    /// place (below `finalPath`), not in a temporary that is gone by the
    /// time the caller reads them.
    func write(
        _ root: FileWrapper, as name: String, in parent: CInt, parentPath: String, original: Original?
    ) throws(FileWrapperError) -> Outcome {
        let path = finalPath
        var outcome = Outcome()
        let (finalParent, finalName) = TreeReader.split(finalPath)
        switch root.kind {
        case .regularFile:
            let identity = try writeFile(root, as: name, in: parent, original: original, path: { path })
            outcome.files.append((root, DiskFile(directory: DiskLocation(root: finalParent), name: finalName, identity: identity)))
        case .symbolicLink:
            try writeLink(root, as: name, in: parent, path: { path })
        case .directory:
            try Syscall.makeDirectory(name, in: parent, mode: 0o700, path: { path })
            do throws(FileWrapperError) {
                try writeTree(root, at: path, fd: try Syscall.openDirectory(name, in: parent, path: { path }), original: original, outcome: &outcome)
            } catch {
                try? TreeRemover.remove(Array(name.utf8), in: parent, parentPath: parentPath)
                throw error
            }
        }
        return outcome
    }

    /// A directory being written and the children still to write.
    private struct Frame {
        let wrapper: FileWrapper
        var pending: [(key: String, child: FileWrapper)]
        let location: DiskLocation
        /// Whether the original cursor stands in this directory's counterpart.
        let hasOriginal: Bool
    }

    private func writeTree(
        _ root: FileWrapper, at path: String, fd: CInt, original: Original?, outcome: inout Outcome
    ) throws(FileWrapperError) {
        let output = try DirectoryCursor(root: fd, path: path)
        let originals: DirectoryCursor? = try original.flatMap { original throws(FileWrapperError) in
            guard let fd = try? Syscall.openDirectory(original.name, in: original.directory, path: { "" }) else { return nil }
            return try DirectoryCursor(root: fd, path: original.name)
        }
        var frames = [Frame(wrapper: root, pending: Self.sortedChildren(of: root), location: DiskLocation(root: finalPath), hasOriginal: originals != nil)]

        while !frames.isEmpty {
            guard let (key, child) = frames[frames.count - 1].pending.popLast() else {
                let frame = frames.removeLast()
                try applyAttributes(frame.wrapper.attributes, defaultPermissions: 0o755, to: output.current, path: { output.path() })
                guard !frames.isEmpty else { break }
                try output.leave()
                if frame.hasOriginal { try originals?.leave() }
                continue
            }
            let location = frames[frames.count - 1].location
            let hasOriginal = frames[frames.count - 1].hasOriginal
            try Self.validate(key, path: { output.path(key) })
            outcome.names.append((child, key))
            let originalHere = hasOriginal ? originals.map { Original(directory: $0.current, name: child.filename ?? key) } : nil
            switch child.kind {
            case .regularFile:
                let identity = try writeFile(child, as: key, in: output.current, original: originalHere, path: { output.path(key) })
                outcome.files.append((child, DiskFile(directory: location, name: key, identity: identity)))
            case .symbolicLink:
                try writeLink(child, as: key, in: output.current, path: { output.path(key) })
            case .directory:
                try Syscall.makeDirectory(key, in: output.current, mode: 0o700, path: { output.path(key) })
                let fd = try Syscall.openDirectory(key, in: output.current, path: { output.path(key) })
                try output.enter(fd, name: Array(key.utf8))
                var childHasOriginal = false
                if let originalHere, let originals,
                   let originalFd = try? Syscall.openDirectory(originalHere.name, in: originalHere.directory, path: { "" }) {
                    try originals.enter(originalFd, name: Array(originalHere.name.utf8))
                    childHasOriginal = true
                }
                frames.append(Frame(
                    wrapper: child, pending: Self.sortedChildren(of: child),
                    location: DiskLocation(name: key, in: location), hasOriginal: childHasOriginal))
            }
        }
    }

    /// Children in reverse name order, so that popping writes them in name order.
    private static func sortedChildren(of directory: FileWrapper) -> [(key: String, child: FileWrapper)] {
        directory.children.map { ($0.key, $0.value) }.sorted { $0.key > $1.key }
    }

    /// Writes a regular file, or hard-links it from the original when it is
    /// unchanged, and returns the identity of the file now on disk.
    private func writeFile(
        _ file: FileWrapper, as name: String, in directory: CInt, original: Original?, path: Syscall.Path
    ) throws(FileWrapperError) -> FileIdentity {
        if let original, let identity = try linkIfUnchanged(file, from: original, as: name, in: directory, path: path) {
            return identity
        }
        let fd = try Syscall.open(name, in: directory, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600, path: path)
        defer { Syscall.close(fd) }
        do throws(FileWrapperError) {
            if let data = file.contents.data {
                try data.withBytes { bytes throws(FileWrapperError) in try Syscall.writeAll(bytes, to: fd, path: path) }
            } else if let source = file.contents.sourceOnly {
                try source.forEachBlock(blockSize: 1 << 20) { bytes throws(FileWrapperError) in try Syscall.writeAll(bytes, to: fd, path: path) }
            } else {
                let (source, sourceFile) = try file.contents.openSource()
                defer { Syscall.close(source) }
                let size = Int(sourceFile.identity.size)
                guard try Syscall.copy(size, from: source, to: fd, path: { sourceFile.path }) == size else {
                    throw FileWrapperError(.changedOnDisk, path: sourceFile.path, detail: "the file became shorter while it was copied")
                }
            }
            try applyAttributes(file.attributes, defaultPermissions: 0o644, to: fd, path: path)
            return FileIdentity(try Syscall.status(of: fd, path: path))
        } catch {
            Syscall.removeQuietly(name, in: directory)
            throw error
        }
    }

    /// Hard-links the original's file when it is the very file the wrapper
    /// was read from or last written to (same inode, size and modification
    /// time) and has the attributes the wrapper asks for (an attribute that
    /// is not set asks for nothing but the default permissions). Returns
    /// `nil` when the file must be written instead, including when the file
    /// system refuses the link.
    private func linkIfUnchanged(
        _ file: FileWrapper, from original: Original, as name: String, in directory: CInt, path: Syscall.Path
    ) throws(FileWrapperError) -> FileIdentity? {
        guard !file.contents.disk.isEmpty,
              let info = try? Syscall.status(of: original.name, in: original.directory, path: path),
              FileKind(mode: info.st_mode) == .regularFile
        else { return nil }
        let identity = FileIdentity(info)
        guard file.contents.disk.contains(where: { $0.identity == identity }) else { return nil }
        let attributes = file.attributes
        guard (attributes.permissions ?? 0o644) == UInt16(info.st_mode & 0o7777),
              attributes.modificationDate.map({ $0 == identity.modified }) ?? true,
              !appliesOwner || attributes.owner.map({ $0 == FileOwner(userID: info.st_uid, groupID: info.st_gid) }) ?? true,
              (try? ExtendedAttributes.read(original.name, in: original.directory, path: path)) == attributes.extendedAttributes
        else { return nil }
        do throws(FileWrapperError) {
            try Syscall.link(original.name, in: original.directory, as: name, in: directory, path: path)
            return identity
        } catch where [.improperLink, .notPermitted, .tooManyLinks, .notSupported].contains(error.errno) {
            return nil
        }
    }

    private func writeLink(_ link: FileWrapper, as name: String, in directory: CInt, path: Syscall.Path) throws(FileWrapperError) {
        try Syscall.makeSymbolicLink(name, in: directory, target: link.linkTarget, path: path)
        do throws(FileWrapperError) {
            try applyLinkAttributes(link.attributes, to: name, in: directory, path: path)
        } catch {
            Syscall.removeQuietly(name, in: directory)
            throw error
        }
    }

    private func applyLinkAttributes(
        _ attributes: FileWrapper.Attributes, to name: String, in directory: CInt, path: Syscall.Path
    ) throws(FileWrapperError) {
        if appliesOwner, let owner = attributes.owner {
            try Syscall.retrying(.fchownat, path) {
                Glibc.fchownat(directory, name, owner.userID, owner.groupID, AT_SYMLINK_NOFOLLOW)
            }
        }
        if let date = attributes.modificationDate {
            var times = [Syscall.omitTime, date.timespec]
            try Syscall.retrying(.utimensat, path) { Glibc.utimensat(directory, name, &times, AT_SYMLINK_NOFOLLOW) }
        }
    }

    /// Applies owner, permissions, extended attributes and, last, the
    /// modification time to an open file or directory.
    private func applyAttributes(
        _ attributes: FileWrapper.Attributes, defaultPermissions: UInt16, to fd: CInt, path: Syscall.Path
    ) throws(FileWrapperError) {
        if appliesOwner, let owner = attributes.owner {
            try Syscall.retrying(.fchown, path) { Glibc.fchown(fd, owner.userID, owner.groupID) }
        }
        try Syscall.retrying(.fchmod, path) { Glibc.fchmod(fd, mode_t(attributes.permissions ?? defaultPermissions)) }
        try ExtendedAttributes.write(attributes.extendedAttributes, to: fd, path: path)
        if let date = attributes.modificationDate {
            var times = [Syscall.omitTime, date.timespec]
            try Syscall.retrying(.futimens, path) { Glibc.futimens(fd, &times) }
        }
    }

    /// A key must be a single, non-empty file name.
    static func validate(_ key: String, path: Syscall.Path) throws(FileWrapperError) {
        guard !key.isEmpty, key != ".", key != "..", !key.utf8.contains(0x2F), !key.utf8.contains(0) else {
            throw FileWrapperError(.invalidName, path: path(), detail: "a child's key must be a single file name, without \"/\" or NUL, and not \".\" or \"..\"")
        }
    }
}
