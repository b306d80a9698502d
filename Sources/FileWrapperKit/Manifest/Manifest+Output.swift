import Glibc

extension Manifest {
    /// Writes the manifest file in `format` to the open descriptor `fd`
    /// (`write(2)`), a piece at a time; `path` names it in errors.
    package func write(as format: ManifestFileFormat, to fd: CInt, path: String) throws(FileWrapperError) {
        try write(as: format) { (piece) throws(FileWrapperError) in
            try Syscall.writeAll(piece, to: fd, path: { path })
        }
    }

    /// Writes the manifest file in `format` to `path`, streaming. A regular
    /// file (or nothing) there is replaced atomically: the manifest is
    /// written under a temporary name beside it, flushed to the disk
    /// (`fsync`) and renamed over it, so that a reader finds the old file
    /// or the new one, whole; temporaries a killed process left are removed
    /// first. Anything else (a device such as `/dev/null`, a pipe, a
    /// symbolic link) is opened and written through, never replaced.
    package func write(as format: ManifestFileFormat, toFileAt path: String) throws(FileWrapperError) {
        let (parentPath, name) = TreeReader.split(path)
        let parent = try Syscall.open(parentPath, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { parentPath })
        defer { Syscall.close(parent) }
        var existing = stat()
        if fstatat(parent, name, &existing, AT_SYMLINK_NOFOLLOW) == 0, InodeKind(mode: existing.st_mode) != .regularFile {
            let fd = try Syscall.open(name, in: parent, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY, mode: 0o666, path: { path })
            defer { Syscall.close(fd) }
            try write(as: format, to: fd, path: path)
            return
        }
        Replacement.removeLeftovers(of: name, in: parent, parentPath: parentPath)
        let temporary = Replacement.temporaryName(for: name)
        let fd = try Syscall.open(temporary, in: parent, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o666, path: { path })
        do throws(FileWrapperError) {
            defer { Syscall.close(fd) }
            try write(as: format, to: fd, path: path)
            try Syscall.retrying("fsync", { path }) { fsync(fd) }
            try Syscall.retrying("renameat", { path }) { renameat(parent, temporary, parent, name) }
        } catch {
            unlinkat(parent, temporary, 0)
            throw error
        }
    }
}
