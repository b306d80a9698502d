import Glibc

extension TemporaryDirectory {
    /// Removes the tree at `path` in this process, as `chmod -R u+rwx` and
    /// `rm -rf` would (a test leaves directories without permissions, and
    /// trees 10,000 levels deep): each directory is made the owner's to
    /// read, write and search before it is opened, its other entries are
    /// unlinked (`unlinkat`), and its subdirectories are emptied one after
    /// the other, then removed (`unlinkat(AT_REMOVEDIR)`).
    ///
    /// One descriptor is open at a time, moved down with `openat` on a
    /// name and back up with `openat` on `..`, so no path grows past
    /// `PATH_MAX` and no recursion grows the stack, whatever the depth.
    /// Names are kept as bytes. What cannot be removed is left, as
    /// `rm -rf` leaves it: removal is best effort, after the test.
    static func removeTree(at path: String) {
        guard chmod(path, S_IRWXU) == 0 || errno != ENOENT else { return }
        var fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            unlink(path)
            return
        }
        // The names below the root that `fd` was reached by, and at each
        // level the subdirectories still to empty.
        var descent: [[CChar]] = []
        var pending: [[[CChar]]] = [emptyAllButSubdirectories(fd)]
        while fd >= 0 {
            if let next = pending[pending.count - 1].popLast() {
                let child = openat(fd, next, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { continue }
                close(fd)
                fd = child
                descent.append(next)
                pending.append(emptyAllButSubdirectories(fd))
            } else {
                pending.removeLast()
                guard let name = descent.popLast() else { break }
                let parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                close(fd)
                fd = parent
                if fd >= 0 { unlinkat(fd, name, AT_REMOVEDIR) }
            }
        }
        if fd >= 0 { close(fd) }
        rmdir(path)
    }

    /// Unlinks every entry of the directory `fd` but its subdirectories,
    /// and returns those (null-terminated names), each made the owner's to
    /// read, write and search.
    private static func emptyAllButSubdirectories(_ fd: CInt) -> [[CChar]] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        var entries: [(name: [CChar], type: UInt8)] = []
        while let entry = readdir(stream) {
            // Through offsets, not `entry.pointee`: the record is only as
            // long as its name, shorter than `dirent` near a buffer's end.
            let record = UnsafeRawPointer(entry)
            let type = record.load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self)
            let start = record.advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self)
            let name = Array(UnsafeBufferPointer(start: start, count: strlen(start) + 1))
            if name == [46, 0] || name == [46, 46, 0] { continue }  // "." and ".."
            entries.append((name, type))
        }
        closedir(stream)
        var subdirectories: [[CChar]] = []
        for (name, type) in entries {
            var isDirectory = type == UInt8(DT_DIR)
            if type == UInt8(DT_UNKNOWN) {
                var info = stat()
                isDirectory = fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isDirectory {
                fchmodat(fd, name, S_IRWXU, 0)
                subdirectories.append(name)
            } else {
                unlinkat(fd, name, 0)
            }
        }
        return subdirectories
    }
}
