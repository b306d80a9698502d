import Glibc

/// Removes a file or a whole directory tree through descriptors, without
/// recursion and without following symlinks: what a failed save leaves
/// behind and what a save swapped out.
package enum TreeRemover {
    /// Removes `name` inside the directory `parent` and everything below it.
    package static func remove(_ name: [UInt8], in parent: CInt, parentPath: String) throws(FileWrapperError) {
        let path = PathDisplay.join(parentPath, [PathDisplay.text(name)])
        let info = try Syscall.status(ofBytes: name, in: parent, path: { path })
        guard FileKind(mode: info.st_mode) == .directory else {
            try Syscall.remove(bytes: name, in: parent, isDirectory: false, path: { path })
            return
        }
        let cursor = try DirectoryCursor(root: try openWritable(name, in: parent, path: path), path: path)
        var pending = [try Syscall.names(inDirectory: cursor.current, path: { path })]
        while !pending.isEmpty {
            guard let entry = pending[pending.count - 1].popLast() else {
                pending.removeLast()
                guard cursor.depth > 0 else { break }
                let directoryName = cursor.currentName
                try cursor.leave()
                try Syscall.remove(bytes: directoryName, in: cursor.current, isDirectory: true, path: { cursor.path(bytes: directoryName) })
                continue
            }
            let entryInfo = try Syscall.status(ofBytes: entry, in: cursor.current, path: { cursor.path(bytes: entry) })
            if FileKind(mode: entryInfo.st_mode) == .directory {
                let fd = try openWritable(entry, in: cursor.current, path: cursor.path(bytes: entry))
                try cursor.enter(fd, name: entry)
                pending.append(try Syscall.names(inDirectory: fd, path: { cursor.path() }))
            } else {
                try Syscall.remove(bytes: entry, in: cursor.current, isDirectory: false, path: { cursor.path(bytes: entry) })
            }
        }
        try Syscall.remove(bytes: name, in: parent, isDirectory: true, path: { path })
    }

    /// Opens a directory and gives its owner the right to list and change
    /// it, which a read-only directory in a saved tree would refuse.
    private static func openWritable(_ name: [UInt8], in parent: CInt, path: String) throws(FileWrapperError) -> CInt {
        let fd = try Syscall.open(bytes: name, in: parent, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, path: { path })
        do throws(FileWrapperError) {
            let info = try Syscall.status(of: fd, path: { path })
            if info.st_mode & 0o700 != 0o700 {
                try Syscall.retrying(.fchmod, { path }) { Glibc.fchmod(fd, (info.st_mode & 0o7777) | 0o700) }
            }
            return fd
        } catch {
            Syscall.close(fd)
            throw error
        }
    }
}
